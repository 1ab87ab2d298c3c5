import EnvelopeCommand
import Foundation

// `envelope inspect | query | models`: see `envelope --help`.
let outcome = Command.run(Array(CommandLine.arguments.dropFirst())) { path in
  try Data(contentsOf: URL(fileURLWithPath: path))
}
FileHandle.standardOutput.write(Data(outcome.output.utf8))
FileHandle.standardError.write(Data(outcome.error.utf8))
exit(outcome.status)
