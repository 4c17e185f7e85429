/**
 * Private keys that carry no PEM armour: DER bytes in a binary file, or base64 of them in a
 * config value (`SIGNING_KEY=MIIEvQIBADAN…`, a `.p12` stored as base64 for CI). Text rules
 * cannot see these; the ASN.1 structure can. Recognised (RFC 8017, 5208/5958, 5915, 7292,
 * OpenSSH PROTOCOL.key): PKCS#1 RSA and DSA keys, PKCS#8 (plain and encrypted), SEC1 EC keys,
 * PKCS#12 bundles, and OpenSSH's binary key format.
 */
export type DerKeyKind = 'pkcs1' | 'pkcs8' | 'pkcs8-encrypted' | 'sec1' | 'pkcs12' | 'openssh';

/** The bytes after the outer SEQUENCE header that identify each kind (-1 = any byte). */
const SHAPES: ReadonlyArray<[DerKeyKind, readonly number[]]> = [
  // version 0, then the modulus (RSA) or p (DSA): a long INTEGER.
  ['pkcs1', [0x02, 0x01, 0x00, 0x02, 0x81]],
  ['pkcs1', [0x02, 0x01, 0x00, 0x02, 0x82]],
  // version 0 (or 1 for RFC 5958), then the AlgorithmIdentifier SEQUENCE holding an OID.
  ['pkcs8', [0x02, 0x01, 0x00, 0x30, -1, 0x06]],
  ['pkcs8', [0x02, 0x01, 0x01, 0x30, -1, 0x06]],
  // EncryptedPrivateKeyInfo: an AlgorithmIdentifier whose OID is PKCS#5 or PKCS#12 PBE.
  ['pkcs8-encrypted', [0x30, -1, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05]],
  ['pkcs8-encrypted', [0x30, 0x81, -1, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05]],
  ['pkcs8-encrypted', [0x30, -1, 0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c]],
  // ECPrivateKey: version 1, then the private key OCTET STRING (P-256, P-384, P-521 sizes).
  ['sec1', [0x02, 0x01, 0x01, 0x04, 0x20]],
  ['sec1', [0x02, 0x01, 0x01, 0x04, 0x30]],
  ['sec1', [0x02, 0x01, 0x01, 0x04, 0x42]],
  // PFX: version 3, then ContentInfo with the pkcs7-data OID (1.2.840.113549.1.7.1).
  ['pkcs12', [0x02, 0x01, 0x03, 0x30]],
];

const OPENSSH_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

function matches(bytes: Uint8Array, at: number, shape: readonly number[]): boolean {
  if (at + shape.length > bytes.length) return false;
  return shape.every((b, i) => b < 0 || bytes[at + i] === b);
}

/**
 * The kind of private key `bytes` holds, or undefined. The outer SEQUENCE's declared length
 * must fit the bytes (±2 for base64 padding), so a PEM body's first line decoded alone, or a
 * random blob that starts with 0x30, does not count.
 */
export function derPrivateKeyKind(bytes: Uint8Array): DerKeyKind | undefined {
  // The smallest OpenSSH key (Ed25519, unencrypted) is about 230 bytes; one 70-character line
  // of an armoured key's body (52 bytes) is not a key on its own.
  if (bytes.length >= 200 && matches(bytes, 0, [...OPENSSH_MAGIC])) return 'openssh';
  // The smallest key here (Ed25519 in PKCS#8) is 48 bytes.
  if (bytes.length < 48 || bytes[0] !== 0x30) return undefined;
  let at = 1;
  let length = bytes[at++]!;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n < 1 || n > 3) return undefined;
    length = 0;
    for (let k = 0; k < n; k++) length = length * 256 + bytes[at++]!;
  }
  if (length < 46 || Math.abs(at + length - bytes.length) > 2) return undefined;
  return SHAPES.find(([, shape]) => matches(bytes, at, shape))?.[0];
}
