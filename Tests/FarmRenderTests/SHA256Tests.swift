import FarmCore
import FarmMedia
import Foundation
import Testing

/// Digests stored by older builds (media blocks, uploads) must still match: the published
/// SHA-256 test vectors, whole and fed in pieces.
@Suite struct SHA256Tests {
    @Test func publishedVectorsWholeAndInPieces() {
        let abc = SHA256()
        abc.update(Array("abc".utf8))
        #expect(abc.finish() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let pieces = SHA256()
        pieces.update(Array(long[..<7]))
        pieces.update(Data(long[7...]))
        #expect(pieces.finish() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
