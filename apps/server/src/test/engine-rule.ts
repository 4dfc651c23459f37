/**
 * Which suites run on both engines (docs/testing.md#which-engine): a suite runs on SQLite and
 * PostgreSQL unless it is listed here. A suite is listed when what it asserts is decided
 * outside the database (cryptography, a peer's protocol, the parsing of what a client sent)
 * and the store calls it makes are the plain ones another suite of its area already runs on
 * both engines. Anything about lists, filters, paging, counts, uniqueness, transactions,
 * concurrent writers, another node, migrations, backups or an outage stays on both.
 *
 * Paths are relative to apps/server/src; the reason names the suite that covers its store on
 * both engines.
 */
export const ONE_ENGINE_SUITES: Readonly<Record<string, string>> = {
  'modules/key/crypto.test.ts':
    'encrypt, sign, verify and MAC results and the audit of failed checks; keys stored as in key.test.ts',
  'modules/key/key.catalogue.test.ts':
    'generates and uses each algorithm (pure cryptography, minutes in JavaScript); key rows as in key.test.ts',
  'modules/key/wycheproof.test.ts':
    'test vectors of the cryptographic checks; key import stored as in key.test.ts',
  'modules/key/key.import.test.ts':
    'parsing and checking imported key material; the stored row is the one key.test.ts lists and filters',
  'modules/key/key.object-cache.test.ts': "the node's in-memory cache of parsed key objects",
  'modules/ldap/ldap.test.ts':
    'the LDAP protocol against slapd; connections stored like any row of credential.test.ts',
  'modules/quantum/quantum.test.ts': 'entropy health tests and sources; its one settings row is plain',
  'modules/hsm/hsm.test.ts':
    'PKCS#11 binding, sealing and unsealing against SoftHSM; backups on both engines in backup.test.ts',
  'modules/ssh-server/ssh-server.test.ts':
    'SSH host keys, logins and password rotation against sshd; credential versions on both engines in credential.test.ts',
  'modules/ssh-server/ssh-server.terminal.test.ts':
    'the web terminal over SSH and its tickets; recordings stored on both engines in ssh-server.recording.test.ts',
};

/** The suite's path relative to apps/server/src, from the path vitest gives. */
export function suiteKey(testPath: string | undefined): string {
  const normalized = (testPath ?? '').replaceAll('\\', '/');
  const at = normalized.lastIndexOf('/src/');
  return at < 0 ? normalized : normalized.slice(at + '/src/'.length);
}
