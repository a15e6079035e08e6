import ArgumentParser
import FarmWire
import Foundation

struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make the key pairs that let only known workers join a farm.",
        discussion: """
            A farm with keys speaks ZeroMQ CURVE: traffic is encrypted, and the coordinator admits \
            only workers whose public key is in its --allowed-workers folder (a worker is added or \
            removed by adding or deleting its NAME.pub; no restart). A worker's id is its key's \
            name, so no key can speak for another worker.

            Examples:
              farm keys generate coordinator --dir /etc/farm/keys
              farm keys generate render-01 --dir /etc/farm/keys      # then copy render-01.pub to
                                                                      # the coordinator's allowed folder
              farm serve --key /etc/farm/keys/coordinator.key --allowed-workers /etc/farm/workers
              farm-worker --coordinator tcp://coord:5555 --key render-01.key --coordinator-key coordinator.pub
            """,
        subcommands: [Generate.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write NAME.key (secret, mode 0600) and NAME.pub (public) in a folder.")

        @Argument(help: "Whose pair this is: a worker's id, or `coordinator`.")
        var name: String

        @Option(name: .long, help: "Folder for the two files.")
        var dir = "."

        func validate() throws {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
            guard !name.isEmpty, !name.hasPrefix("."), name.unicodeScalars.allSatisfy(allowed.contains) else {
                throw ValidationError("NAME may hold letters, digits, '-', '_' and '.' (got \"\(name)\")")
            }
        }

        func run() throws {
            let folder = URL(fileURLWithPath: dir)
            do {
                try CurveKeys.generate(name: name).write(to: folder)
            } catch let error as TransportError {
                FarmExit.printError(error.description)
                throw FarmExit.badInput
            }
            print(folder.appendingPathComponent("\(name).key").path)
            print(folder.appendingPathComponent("\(name).pub").path)
        }
    }
}
