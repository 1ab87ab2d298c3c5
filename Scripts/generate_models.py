#!/usr/bin/env python3
"""Generates Codable Swift models that cover every key of a JSON payload.

Used once to write the benchmark models (Sources/EnvelopeBenchmarks/Models*.swift):
    python3 Scripts/generate_models.py ../shared/data/payloads/twitter.json Twitter > out.swift
Objects whose keys are all digits become dictionaries. A key missing from some instances or
null in some becomes Optional. Integers mixed with fractions become Double.
"""
import json
import re
import sys

KEYWORDS = {"default", "class", "struct", "protocol", "var", "let", "func", "in", "is", "as",
            "self", "Type", "extension", "import", "return", "where", "case", "switch",
            "repeat", "while", "for", "if", "else", "do", "try", "throw", "catch", "init",
            "enum", "operator", "public", "private", "internal", "static", "subscript"}


class Shape:
    def __init__(self):
        self.kinds = set()      # null bool int double string array object dict
        self.element = None     # Shape for arrays and dict values
        self.fields = {}        # name -> Shape for objects
        self.count = 0          # object instances seen
        self.present = {}       # name -> instances that had the key

    def add(self, value):
        if value is None:
            self.kinds.add("null")
        elif isinstance(value, bool):
            self.kinds.add("bool")
        elif isinstance(value, int):
            self.kinds.add("int")
        elif isinstance(value, float):
            self.kinds.add("double")
        elif isinstance(value, str):
            self.kinds.add("string")
        elif isinstance(value, list):
            self.kinds.add("array")
            self.element = self.element or Shape()
            for item in value:
                self.element.add(item)
        elif all(k.isdigit() for k in value):
            self.kinds.add("dict")
            self.element = self.element or Shape()
            for item in value.values():
                self.element.add(item)
        else:
            self.kinds.add("object")
            self.count += 1
            for key, item in value.items():
                self.fields.setdefault(key, Shape()).add(item)
                self.present[key] = self.present.get(key, 0) + 1


def camel(name):
    parts = re.split(r"[^A-Za-z0-9]+", name)
    text = parts[0][:1].lower() + parts[0][1:] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    if not text or text[0].isdigit():
        text = "_" + text
    return "`%s`" % text if text in KEYWORDS else text


def type_name(name):
    text = camel(name).strip("`_")
    return text[:1].upper() + text[1:]


class Generator:
    def __init__(self, prefix):
        self.prefix = prefix
        self.structs = []
        self.names = set()
        self.by_body = {}  # identical shapes share one struct

    def swift_type(self, shape, name):
        kinds = shape.kinds - {"null"}
        optional = "null" in shape.kinds
        if not kinds:
            base = "String"  # only ever null: any scalar works for an Optional
            optional = True
        elif kinds <= {"int"}:
            base = "Int"
        elif kinds <= {"int", "double"}:
            base = "Double"
        elif kinds == {"bool"}:
            base = "Bool"
        elif kinds == {"string"}:
            base = "String"
        elif kinds == {"array"}:
            base = "[%s]" % self.swift_type(shape.element, singular(name)).rstrip("?")
        elif kinds == {"dict"}:
            base = "[String: %s]" % self.swift_type(shape.element, singular(name)).rstrip("?")
        elif kinds <= {"object", "dict"}:
            base = self.struct(shape, name)
        else:
            raise SystemExit("mixed kinds %s at %s" % (kinds, name))
        return base + ("?" if optional else "")

    def struct(self, shape, name):
        lines = []
        keys = []
        for key, field in shape.fields.items():
            swift = self.swift_type(field, key)
            if shape.present[key] < shape.count and not swift.endswith("?"):
                swift += "?"
            prop = camel(key)
            lines.append("  var %s: %s" % (prop, swift))
            keys.append((prop, key))
        body = "\n".join(lines)
        coding = "\n".join(
            "    case %s%s" % (p, "" if p.strip("`") == k else ' = "%s"' % k) for p, k in keys)
        key = (body, coding)
        if key in self.by_body:
            return self.by_body[key]
        struct_name = self.prefix + type_name(name)
        while struct_name in self.names:
            struct_name += "_"
        self.names.add(struct_name)
        self.by_body[key] = struct_name
        self.structs.append(
            "struct %s: Codable, Equatable {\n%s\n\n  enum CodingKeys: String, CodingKey {\n%s\n  }\n}\n"
            % (struct_name, body, coding))
        return struct_name


def singular(name):
    return name[:-1] if name.endswith("s") and len(name) > 1 else name + "Item"


def main():
    path, prefix = sys.argv[1], sys.argv[2]
    shape = Shape()
    shape.add(json.load(open(path)))
    generator = Generator(prefix)
    root = generator.swift_type(shape, "Root")
    print("// Generated by Scripts/generate_models.py from %s. Do not edit by hand." % path.split("/")[-1])
    print("// Root type: %s\n" % root)
    print("\n".join(reversed(generator.structs)), end="")


main()
