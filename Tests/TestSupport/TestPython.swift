import Foundation

/// The tests' Python: `.build/otio-venv`, which `ops/setup-tests.sh` makes with the
/// `opentimelineio` package, its adapters and the other packages the tests use as oracles.
public enum TestPython {
    public static var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/otio-venv/bin/python3").path
    }
}
