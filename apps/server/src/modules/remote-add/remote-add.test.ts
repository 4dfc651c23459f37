import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { selfSignedEc } from '../../test/openssl.js';
import { call, startServer, type TestServer } from '../../test/harness.js';
import { tlsCaOf } from './remote-add.module.js';

describe('remote-add info (public)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-remote-add-'));
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  selfSignedEc(dir, { key: 'ca.key', cert: 'ca.pem', cn: 'KSP Test CA', days: 30 });
  selfSignedEc(dir, { key: 'leaf.key', cert: 'leaf.pem', cn: 'ksp.example', days: 30 });
  const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
  const leafPem = readFileSync(join(dir, 'leaf.pem'), 'utf8');

  it("names the last certificate of the TLS chain file: the CA, as a TLS client's SHA-256 fingerprint", () => {
    const ca = tlsCaOf(`${leafPem}\n${caPem}`);
    expect(ca?.fingerprint).toBe(new X509Certificate(caPem).fingerprint256);
    expect(ca?.subject).toContain('KSP Test CA');
    expect(tlsCaOf(leafPem)?.subject).toContain('ksp.example');
    expect(tlsCaOf('no certificate')).toBeNull();
  });

  it('answers without a token, before initialization too, with no fingerprint when the server has no TLS', async () => {
    const server = await startServer('sqlite');
    servers.push(server);
    const info = await call(server, api.remoteAdd.info, {});
    expect(info.code).toBe(0);
    expect(info.data).toEqual({ tls: false, ca_fingerprint_sha256: null, ca_subject: null });
  });

  it('answers the TLS CA fingerprint when the server listens with TLS', async () => {
    const chain = join(dir, 'chain.pem');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(chain, `${leafPem}\n${caPem}`);
    const server = await startServer('sqlite', {}, undefined, undefined, {
      config: (c) => ({ ...c, tls: { cert: chain, key: join(dir, 'leaf.key') } }),
    });
    servers.push(server);
    const info = await call(server, api.remoteAdd.info, {});
    expect(info.data.tls).toBe(true);
    expect(info.data.ca_fingerprint_sha256).toBe(new X509Certificate(caPem).fingerprint256);
  });
});
