// Mints KSP licences (docs/api.md "Licences") with an Ed25519 private key: the vendor's in
// production (kept off every server), a throwaway test key in the test suites.
//
//   npx tsx tools/license-mint.ts keygen <private-key.pem>
//       writes a new private key (PEM, PKCS#8) and prints the public key as base64url of its
//       32 raw bytes (the value of KSP_LICENSE_TEST_PUBLIC_KEY for a test server)
//   npx tsx tools/license-mint.ts mint <private-key.pem> <payload.json | ->
//       prints the licence text KSP1.<payload>.<signature> for the payload JSON (a file or stdin)
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

export function mint(payloadJson: string, privateKeyPem: string): string {
  const bytes = Buffer.from(JSON.stringify(JSON.parse(payloadJson)), 'utf8');
  const signature = sign(null, bytes, createPrivateKey(privateKeyPem));
  return `KSP1.${bytes.toString('base64url')}.${signature.toString('base64url')}`;
}

export function publicKeyOf(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ format: 'jwk' }).x!;
}

const [command, keyFile, payloadFile] = process.argv.slice(2);
if (command === 'keygen' && keyFile) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  writeFileSync(keyFile, pem, { mode: 0o600 });
  process.stdout.write(`${publicKeyOf(pem)}\n`);
} else if (command === 'mint' && keyFile && payloadFile) {
  const payload = readFileSync(payloadFile === '-' ? 0 : payloadFile, 'utf8');
  process.stdout.write(`${mint(payload, readFileSync(keyFile, 'utf8'))}\n`);
} else if (command) {
  process.stderr.write('usage: license-mint.ts keygen <key.pem> | mint <key.pem> <payload.json|->\n');
  process.exit(2);
}
