#!/usr/bin/env python3
"""Writes a JSON document shaped like Jenkins' update-center.json (plugins keyed by hundreds of
plugin names, deprecations keyed by plugin names, a list of warnings), deterministic for a count.

Usage: python3 scripts/update-center-sample.py [PLUGINS] > update-center.json
"""
import json
import random
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 654
rng = random.Random(39)
words = ("git workflow pipeline maven ant credentials ssh docker kubernetes matrix junit mailer "
         "script security branch api token timestamper slack email ext build blue ocean config "
         "file provider jdk tool cloud aws azure github gitlab bitbucket job dsl folder role "
         "strategy parameter node label plain view theme metrics").split()
names = []
while len(names) < count:
    parts = rng.randint(1, 3)
    name = "-".join(rng.choice(words) for _ in range(parts))
    if parts > 1 and rng.random() < 0.3:
        name += "-plugin"
    if name not in names:
        names.append(name)


def version():
    return "%d.%d.%d" % (rng.randint(1, 9), rng.randint(0, 40), rng.randint(0, 9))


def stamp():
    return "20%02d-%02d-%02dT%02d:%02d:%02d.00Z" % (
        rng.randint(15, 25), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
        rng.randint(0, 59), rng.randint(0, 59))


plugins = {}
for name in names:
    plugin = {
        "buildDate": "Jan %d, 2024" % rng.randint(1, 28),
        "dependencies": [
            {"name": rng.choice(names), "optional": rng.random() < 0.2, "version": version()}
            for _ in range(rng.randint(0, 4))],
        "developers": [
            dict([("developerId", "dev%d" % rng.randint(1, 999))]
                 + ([("email", "dev@example.org")] if rng.random() < 0.5 else [])
                 + ([("name", "Dev %d" % rng.randint(1, 99))] if rng.random() < 0.7 else []))
            for _ in range(rng.randint(0, 3))],
        "excerpt": "Integrates %s with Jenkins." % name,
        "gav": "org.jenkins-ci.plugins:%s:%s" % (name, version()),
        "labels": [rng.choice(words) for _ in range(rng.randint(0, 3))],
        "name": name,
        "popularity": rng.randint(0, 300000),
        "releaseTimestamp": stamp(),
        "requiredCore": version(),
        "scm": "https://github.com/jenkinsci/%s-plugin" % name,
        "sha1": "%040x" % rng.getrandbits(160),
        "sha256": "%064x" % rng.getrandbits(256),
        "size": rng.randint(10000, 9000000),
        "title": name.replace("-", " ").title(),
        "url": "https://updates.jenkins.io/download/plugins/%s/%s/%s.hpi" % (name, version(), name),
        "version": version(),
        "wiki": "https://plugins.jenkins.io/%s" % name,
    }
    if rng.random() < 0.8:
        plugin["previousTimestamp"] = stamp()
        plugin["previousVersion"] = version()
    if rng.random() < 0.6:
        plugin["issueTrackers"] = [{
            "reportUrl": "https://www.jenkins.io/participate/report-issue/redirect/#%d" % rng.randint(1, 99999),
            "type": "jira",
            "viewUrl": "https://issues.jenkins.io/issues/?jql=component%%3D%d" % rng.randint(1, 99999)}]
    if rng.random() < 0.5:
        plugin["defaultBranch"] = rng.choice(["master", "main"])
    if rng.random() < 0.1:
        plugin["minimumJavaVersion"] = rng.choice(["1.8", "11", "17"])
    plugins[name] = plugin

document = {
    "connectionCheckUrl": "https://www.google.com/",
    "core": {"buildDate": "Nov 19, 2024", "name": "core", "sha1": "%040x" % rng.getrandbits(160),
             "size": 91000000, "url": "https://updates.jenkins.io/download/war/2.486/jenkins.war",
             "version": "2.486"},
    "deprecations": {name: {"url": "https://plugins.jenkins.io/%s/#deprecated" % name}
                     for name in rng.sample(names, min(len(names), count // 6 + 2))},
    "generationTimestamp": "2024-11-27T07:00:00Z",
    "id": "default",
    "plugins": plugins,
    "signature": {"certificates": ["MIIE" + "%064x" % rng.getrandbits(256)],
                  "correct_digest": "x", "correct_signature": "y"},
    "updateCenterVersion": "1",
    "warnings": [
        {"id": "SECURITY-%d" % rng.randint(100, 3000), "message": "A flaw", "name": rng.choice(names),
         "type": "plugin", "url": "https://www.jenkins.io/security/advisory/",
         "versions": [{"lastVersion": version(), "pattern": "1[.].*"}]}
        for _ in range(12)],
}
json.dump(document, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
