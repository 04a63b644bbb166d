import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// ECDSA P-256 through OpenSSL: the native package vector's signature, round trips, and refusals.
@Suite struct ECDSAKeyTests {
    struct PackageVector: Decodable { let packageHex, signatureDerHex, publicKeyPem: String }
    struct File: Decodable { let package: PackageVector }

    static let vector: PackageVector = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/native/ckpr-v1.json")
        return try! JSONDecoder().decode(File.self, from: Data(contentsOf: url)).package
    }()

    @Test func verifiesTheVectorPackageSignature() throws {
        let key = try ECDSAPublicKey(pem: Self.vector.publicKeyPem)
        let package = try #require(Hex.decode(Self.vector.packageHex))
        let signature = try #require(Hex.decode(Self.vector.signatureDerHex))
        #expect(key.isValidSignature(signature, for: package))
        var altered = package
        altered[altered.count - 1] ^= 1
        #expect(!key.isValidSignature(signature, for: altered))
        var badSignature = signature
        badSignature[10] ^= 1
        #expect(!key.isValidSignature(badSignature, for: package))
        #expect(!key.isValidSignature([], for: package))
        #expect(!key.isValidSignature([0x30, 0x00], for: package))
    }

    /// The package streamed in pieces through SHA-256 verifies as the whole package does; FIPS 180-2's "abc" digest.
    @Test func verifiesTheVectorPackageThroughAStreamedDigest() throws {
        let key = try ECDSAPublicKey(pem: Self.vector.publicKeyPem)
        let package = try #require(Hex.decode(Self.vector.packageHex))
        let signature = try #require(Hex.decode(Self.vector.signatureDerHex))
        func digest(_ bytes: [UInt8], pieces: Int) -> [UInt8] {
            let hash = key.makeSHA256()
            bytes.withUnsafeBytes { all in
                for start in stride(from: 0, to: all.count, by: pieces) {
                    hash.update(UnsafeRawBufferPointer(rebasing: all[start..<min(all.count, start + pieces)]))
                }
            }
            return hash.finish()
        }
        for pieces in [1, 7, 64, 4096] {
            #expect(key.isValidSignature(signature, forSHA256: digest(package, pieces: pieces)))
        }
        #expect(digest(package, pieces: 13) == (try OpenSSLCrypto().sha256(package)))
        #expect(
            Hex.encode(digest(Array("abc".utf8), pieces: 1))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var altered = package
        altered[altered.count - 1] ^= 1
        #expect(!key.isValidSignature(signature, forSHA256: digest(altered, pieces: 64)))
        #expect(!key.isValidSignature([], forSHA256: digest(package, pieces: 64)))
        #expect(!key.isValidSignature(signature, forSHA256: []))
        // A used-up digest gives nothing that verifies.
        let used = key.makeSHA256()
        _ = used.finish()
        #expect(used.finish().isEmpty)
    }

    @Test func signsAndVerifiesWithAFreshKey() throws {
        let privateKey = try ECDSAPrivateKey()
        let publicKey = try privateKey.publicKey()
        let message = Array("package".utf8)
        let signature = try privateKey.signature(for: message)
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(try !ECDSAPrivateKey().publicKey().isValidSignature(signature, for: message))
        // PEM round trips keep the key.
        let reloaded = try ECDSAPrivateKey(pem: privateKey.pemRepresentation)
        #expect(publicKey.isValidSignature(try reloaded.signature(for: message), for: message))
        let publicAgain = try ECDSAPublicKey(pem: publicKey.pemRepresentation)
        #expect(publicAgain.derRepresentation == publicKey.derRepresentation)
        #expect(publicKey.isValidSignature(try privateKey.signature(for: []), for: []))
    }

    @Test func refusesGarbageKeys() {
        #expect(throws: OpenSSLError.self) { try ECDSAPublicKey(pem: "not a key") }
        #expect(throws: OpenSSLError.self) { try ECDSAPublicKey(der: [1, 2, 3]) }
        #expect(throws: OpenSSLError.self) {
            try ECDSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }
}
