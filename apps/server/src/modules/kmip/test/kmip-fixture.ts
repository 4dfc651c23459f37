import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, type KmipClientRow } from '@ksp/contracts';
import { call, initialize, ok, startServer, type TestServer } from '../../../test/harness.js';
import { makeSelfSignedEc, newEcKey, openssl, selfSignedEc } from '../../../test/openssl.js';
import { kmipPortOf } from '../kmip.module.js';

/** A KMIP client's files: its certificate (followed by the chain), its key, and the listener's CA. */
export interface ClientFiles {
  cert: string;
  key: string;
  ca: string;
}

/** A server with its KMIP listener on a free port (its certificate self-signed in `dir`), initialized. */
export interface KmipServer {
  server: TestServer;
  token: string;
  port: number;
  dir: string;
  files(name: string): ClientFiles;
  /** A KMIP client made in the console by `as` with the role named `role` (or of that id), from an openssl CSR. */
  client(as: string, name: string, role: string): Promise<{ files: ClientFiles; client: KmipClientRow }>;
  close(): Promise<void>;
}

export async function startKmipServer(env: Record<string, string> = {}): Promise<KmipServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-kmip-'));
  selfSignedEc(dir, { key: 'server.key', cert: 'server.pem', cn: '127.0.0.1', days: 2 });
  const server = await startServer('sqlite', {
    KSP_KMIP_PORT: '0',
    KSP_KMIP_CERT: join(dir, 'server.pem'),
    KSP_KMIP_KEY: join(dir, 'server.key'),
    ...env,
  });
  const { token } = await initialize(server);
  const files = (name: string): ClientFiles => ({
    cert: join(dir, `${name}.pem`),
    key: join(dir, `${name}.key`),
    ca: join(dir, 'server.pem'),
  });
  return {
    server,
    token,
    port: kmipPortOf(server.app)!,
    dir,
    files,
    async client(as, name, role) {
      openssl(
        ['req', '-new', ...newEcKey(`${name}.key`), '-out', `${name}.csr`, '-subj', `/CN=${name}`],
        dir,
      );
      const roles = ok(await call(server, api.role.list, { token: as, query: { page: 1, page_size: 50 } }));
      const roleId = roles.data.data.find((r) => r.name === role || r.id === role)!.id;
      const made = ok(
        await call(server, api.kmip.create, {
          token: as,
          body: { name, role_id: roleId, csr: readFileSync(join(dir, `${name}.csr`), 'utf8') },
        }),
      );
      writeFileSync(join(dir, `${name}.pem`), made.data.certificate_pem + made.data.chain_pem);
      return { files: files(name), client: made.data.client };
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new self-signed EC certificate, written as `<name>.der` in `dir` with its key beside it: a
 * CA's, or an end-entity one (a storage array's own, say: basicConstraints CA:FALSE). Its path.
 */
export async function selfSignedDerFile(dir: string, name: string, ca = true): Promise<string> {
  await makeSelfSignedEc({
    key: `${name}.key`,
    cert: `${name}.der`,
    der: true,
    cn: name,
    days: 2,
    ca,
    cwd: dir,
  });
  return join(dir, `${name}.der`);
}
