import { createWriteStream, existsSync, openAsBlob, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import {
  api,
  formatMessage,
  PRODUCT_VERSION,
  TOKEN_HEADER,
  VERSION_HEADER,
  type CallDef,
} from '@ksp/contracts';
import { loadConfig } from './platform/config.js';
import { openDatabase } from './platform/db/database.js';
import { replaceHsmPin } from './platform/keyring/hsm-settings.js';
import { RootUnavailable } from './platform/keyring/root-of-trust.js';

/**
 * Unattended first run against a running server: the same public calls the console
 * makes. Passwords come from an environment variable or a file, never from argv.
 */
const usage = `Usage:
  ksp status [--url URL]
  ksp log-verify [--url URL] --user USER (--password-env VAR | --password-file FILE)
  ksp backup create [--url URL] --user USER (--password-env VAR | --password-file FILE)
             [--scope system|domain] [--key BACKUP_KEY_ID] [--description TEXT] [--out FILE]
  ksp backup list   [--url URL] --user USER (--password-env VAR | --password-file FILE)
  ksp restore       [--url URL] --user USER (--password-env VAR | --password-file FILE)
             (--file ARCHIVE | --id BACKUP_ID)
             [--key-file KEY_FILE (--key-password-env VAR | --key-password-file FILE)]
  ksp hsm-pin [--data-dir DIR] (--pin-env VAR | --pin-file FILE)
  ksp init   [--url URL] [--components N] --admin USER --email EMAIL
             (--password-env VAR | --password-file FILE)
             [--setup-code CODE | --data-dir DIR]

  --url          server address (default http://127.0.0.1:8080, or KSP_URL)
  --components   number of root key components, 2 to 9 (default 3)
  --setup-code   the one-time code a server on a network address prints at start
  --data-dir     the server's data directory (default KSP_DATA_DIR or ./data): on the server's
                 machine, the code is read from its file setup-code when --setup-code is not given

backup create waits until the backup is completed, prints its id and SHA-256, and with --out
saves the archive there. restore uploads the backup key file (when given; one already there is
kept) and the archive, then restores it all or nothing; a system restore signs everyone out.

hsm-pin gives the server a new HSM user PIN, also while it is sealed because the token refuses
the old one. Run it on a node, with the server's environment (KSP_DATA_DIR, KSP_DATABASE_URL):
it opens the database itself. The PIN must log in to the token and unwrap the root key before
it is stored (sealed under the node's hsm-pin.key); a sealed server then unseals within a
second, without a restart. Nothing changes when the PIN is refused.

init prints every key component once with its KCV: hand each to its custodian.
log-verify walks the audit chains the user may see (every chain for a root-domain
administrator) and exits with status 1 when one is broken, naming the first broken link.`;

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

async function send<C extends CallDef>(
  base: string,
  def: C,
  body?: unknown,
  token?: string,
): Promise<Envelope<unknown>> {
  const res = await fetch(new URL(def.path, base), {
    method: def.method,
    headers: {
      'content-type': 'application/json',
      [VERSION_HEADER]: PRODUCT_VERSION,
      ...(token ? { [TOKEN_HEADER]: token } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Envelope<unknown>;
  if (json.code !== 0) throw new Error(`${def.path}: ${json.msg} (code ${json.code})`);
  return json;
}

async function run(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      components: { type: 'string' },
      admin: { type: 'string' },
      user: { type: 'string' },
      email: { type: 'string' },
      'password-env': { type: 'string' },
      'password-file': { type: 'string' },
      'setup-code': { type: 'string' },
      'data-dir': { type: 'string' },
      scope: { type: 'string' },
      key: { type: 'string' },
      description: { type: 'string' },
      out: { type: 'string' },
      file: { type: 'string' },
      id: { type: 'string' },
      'key-file': { type: 'string' },
      'key-password-env': { type: 'string' },
      'key-password-file': { type: 'string' },
      'pin-env': { type: 'string' },
      'pin-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help || !command) {
    console.log(usage);
    return;
  }
  const base = values.url ?? process.env.KSP_URL ?? 'http://127.0.0.1:8080';
  if (command === 'status') {
    console.log(JSON.stringify((await send(base, api.system.status)).data, null, 2));
    return;
  }
  const readPassword = () => {
    if (values['password-env']) return process.env[values['password-env']];
    if (values['password-file']) return readFileSync(values['password-file'], 'utf8').replace(/\r?\n$/, '');
    return undefined;
  };
  if (command === 'log-verify') {
    const password = readPassword();
    if (!values.user || !password)
      throw new Error(`--user and --password-env VAR or --password-file FILE are required\n\n${usage}`);
    // The console's sign-in: base64 of the name, base64 of SHA-256 of the password.
    const signedIn = (
      await send(base, api.user.login, {
        username: Buffer.from(values.user, 'utf8').toString('base64'),
        password: createHash('sha256').update(password, 'utf8').digest('base64'),
      })
    ).data as { token: string };
    const report = (await send(base, api.log.verify, {}, signedIn.token)).data as {
      ok: boolean;
      unsealed: number;
      chains: {
        domain: string;
        records: number;
        first_seq: number;
        last_seq: number;
        broken: { seq: number; id: string | null; at: string | null; reason: string } | null;
      }[];
    };
    for (const c of report.chains) {
      const name = c.domain || '(system)';
      console.log(
        c.broken
          ? `${name}: BROKEN at ${c.broken.seq} (${c.broken.reason}${c.broken.id ? `, record ${c.broken.id} of ${c.broken.at}` : ''})`
          : `${name}: ok, ${c.records} records (${c.first_seq}–${c.last_seq})`,
      );
    }
    console.log(`${report.unsealed} records not sealed yet`);
    await send(base, api.user.logout, {}, signedIn.token).catch(() => undefined);
    if (!report.ok) process.exitCode = 1;
    return;
  }
  if (command === 'hsm-pin') {
    await hsmPinCommand(values);
    return;
  }
  if (command === 'backup' || command === 'restore') {
    await backupCommand(base, command === 'restore' ? 'restore' : positionals[1], values, readPassword());
    return;
  }
  if (command !== 'init') throw new Error(`Unknown command '${command}'\n\n${usage}`);
  const total = Number(values.components ?? 3);
  if (!Number.isInteger(total) || total < 2 || total > 9)
    throw new Error('--components must be a whole number from 2 to 9');
  if (!values.admin || !values.email) throw new Error(`--admin and --email are required\n\n${usage}`);
  const password = readPassword();
  if (!password)
    throw new Error('Give the administrator password with --password-env VAR or --password-file FILE');

  const status = (await send(base, api.system.status)).data as {
    initialized: boolean;
    activated: boolean;
    setup_code_required: boolean;
  };
  let setupCode = values['setup-code'];
  if (status.setup_code_required && !setupCode) {
    const file = join(values['data-dir'] ?? process.env.KSP_DATA_DIR ?? './data', 'setup-code');
    if (!existsSync(file))
      throw new Error(
        `The server needs its one-time setup code: give --setup-code, or --data-dir of the server (no ${file})`,
      );
    setupCode = readFileSync(file, 'utf8').trim();
  }
  /** Adds the code to a first-run body when the server asks for one. */
  const withCode = <B extends object>(body: B) =>
    status.setup_code_required ? { ...body, setup_code: setupCode } : body;
  if (!status.initialized) {
    for (let i = 0; i < total; i++) {
      const body = i === 0 ? { total, restart: true } : {};
      const c = (await send(base, api.system.initComponent, withCode(body))).data as {
        index: number;
        total: number;
        component: string;
        kcv: string;
      };
      console.log(
        `component ${c.index}/${c.total}: ${c.component.match(/.{1,8}/g)?.join(' ')}  KCV ${c.kcv}`,
      );
    }
    const fin = (await send(base, api.system.initFinish, withCode({}))).data as {
      kcv: string;
      seal_file: string;
    };
    console.log(`root key KCV ${fin.kcv}; sealed by ${fin.seal_file} (keep a copy of it with the backups)`);
  } else {
    console.log('already initialized');
  }
  if (!status.activated) {
    await send(
      base,
      api.system.activate,
      withCode({ username: values.admin, password, email: values.email }),
    );
    console.log(`activated: administrator '${values.admin}' created`);
  } else {
    console.log('already activated');
  }
}

interface BackupOptions {
  user?: string | undefined;
  scope?: string | undefined;
  key?: string | undefined;
  description?: string | undefined;
  out?: string | undefined;
  file?: string | undefined;
  id?: string | undefined;
  'key-file'?: string | undefined;
  'key-password-env'?: string | undefined;
  'key-password-file'?: string | undefined;
}

interface BackupInfo {
  id: string;
  scope: string;
  status: string;
  progress: number;
  sha256: string;
  size: number;
  error: string | null;
  created_at: string;
  domain: string;
  description: string;
  restore_status: string | null;
}

/** `backup create|list` and `restore`, through the same calls as the console. */
async function backupCommand(
  base: string,
  sub: string | undefined,
  values: BackupOptions,
  password: string | undefined,
) {
  if (!values.user || !password)
    throw new Error(`--user and --password-env VAR or --password-file FILE are required\n\n${usage}`);
  const token = (
    (
      await send(base, api.user.login, {
        username: Buffer.from(values.user, 'utf8').toString('base64'),
        password: createHash('sha256').update(password, 'utf8').digest('base64'),
      })
    ).data as { token: string }
  ).token;
  const get = async (path: string, query: Record<string, string>) => {
    const url = new URL(path, base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await fetch(url, { headers: { [TOKEN_HEADER]: token, [VERSION_HEADER]: PRODUCT_VERSION } });
    return res;
  };
  const envelope = async <T>(res: Response, path: string): Promise<T> => {
    const json = (await res.json()) as Envelope<T>;
    if (json.code !== 0) throw new Error(`${path}: ${json.msg} (code ${json.code})`);
    return json.data;
  };
  try {
    if (sub === 'list') {
      const list = await envelope<{ data: BackupInfo[]; total: number }>(
        await get(api.backup.list.path, { page_size: '1000' }),
        api.backup.list.path,
      );
      for (const b of list.data)
        console.log(
          `${b.id}  ${b.created_at}  ${b.scope.padEnd(12)} ${b.status.padEnd(10)} ${b.domain}  ${b.size} bytes  sha256 ${b.sha256}${b.description ? `  ${b.description}` : ''}`,
        );
      return;
    }
    if (sub === 'create') {
      const scope = values.scope ?? 'system';
      if (scope !== 'system' && scope !== 'domain') throw new Error('--scope is system or domain');
      let info = (
        await send(
          base,
          api.backup.create,
          {
            scope,
            description: values.description ?? '',
            ...(values.key ? { backup_key_id: values.key } : {}),
          },
          token,
        )
      ).data as BackupInfo;
      while (info.status === 'backing_up') {
        await new Promise((r) => setTimeout(r, 500));
        info = await envelope<BackupInfo>(
          await get(api.backup.detail.path, { id: info.id }),
          api.backup.detail.path,
        );
      }
      if (info.status !== 'completed')
        throw new Error(`backup ${info.id} failed: ${info.error ?? 'unknown reason'}`);
      console.log(`backup ${info.id} completed: ${info.size} bytes, sha256 ${info.sha256}`);
      if (values.out) {
        const res = await get(api.backup.download.path, { id: info.id });
        if (!res.ok || !res.body || (res.headers.get('content-type') ?? '').includes('json'))
          throw new Error(`download: ${await res.text()}`);
        await pipeline(Readable.fromWeb(res.body), createWriteStream(values.out, { mode: 0o600 }));
        console.log(`saved to ${values.out}`);
      }
      return;
    }
    if (sub === 'restore') {
      if (values['key-file']) {
        const keyPassword = values['key-password-env']
          ? process.env[values['key-password-env']]
          : values['key-password-file']
            ? readFileSync(values['key-password-file'], 'utf8').replace(/\r?\n$/, '')
            : undefined;
        if (!keyPassword)
          throw new Error('--key-file needs --key-password-env VAR or --key-password-file FILE');
        const answer = await fetch(new URL(api.backupKey.upload.path, base), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [TOKEN_HEADER]: token,
            [VERSION_HEADER]: PRODUCT_VERSION,
          },
          body: JSON.stringify({ file: readFileSync(values['key-file'], 'utf8'), password: keyPassword }),
        });
        const json = (await answer.json()) as Envelope<unknown>;
        // 4090: the key is here already, which is what a restore needs.
        if (json.code !== 0 && json.code !== 4090)
          throw new Error(`backup key: ${json.msg} (code ${json.code})`);
        console.log(json.code === 0 ? 'backup key uploaded' : 'backup key already here');
      }
      let id = values.id;
      if (values.file) {
        const form = new FormData();
        form.set('file', await openAsBlob(values.file), 'backup.kspb');
        const res = await fetch(new URL(api.backup.upload.path, base), {
          method: 'POST',
          headers: { [TOKEN_HEADER]: token, [VERSION_HEADER]: PRODUCT_VERSION },
          body: form,
        });
        const up = await envelope<BackupInfo>(res, api.backup.upload.path);
        console.log(`archive uploaded as backup ${up.id} (sha256 ${up.sha256})`);
        id = up.id;
      }
      if (!id) throw new Error(`--file ARCHIVE or --id BACKUP_ID is required\n\n${usage}`);
      const done = (await send(base, api.backup.restore, { id }, token)).data as BackupInfo;
      console.log(`backup ${done.id} ${done.restore_status}`);
      return;
    }
    throw new Error(`Unknown backup command '${sub ?? ''}'\n\n${usage}`);
  } finally {
    await send(base, api.user.logout, {}, token).catch(() => undefined);
  }
}

run().catch((err: unknown) => {
  console.error(`ksp: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

/** `hsm-pin`: the new PIN is checked against the token, then stored (platform/keyring/hsm-settings.ts). */
async function hsmPinCommand(values: {
  'data-dir'?: string | undefined;
  'pin-env'?: string | undefined;
  'pin-file'?: string | undefined;
}): Promise<void> {
  const pin = values['pin-env']
    ? process.env[values['pin-env']]
    : values['pin-file']
      ? readFileSync(values['pin-file'], 'utf8').replace(/\r?\n$/, '')
      : undefined;
  if (!pin) throw new Error(`Give the new PIN with --pin-env VAR or --pin-file FILE\n\n${usage}`);
  const config = loadConfig({
    ...process.env,
    ...(values['data-dir'] ? { KSP_DATA_DIR: values['data-dir'] } : {}),
  });
  const database = openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    const done = await replaceHsmPin(
      database.db,
      config.dataDir,
      config.pkcs11Dirs,
      pin,
      `ksp@${hostname()}`,
    );
    console.log(
      `HSM PIN replaced (checked against the token${done.bound ? ': it unwraps the root key' : ''}); ` +
        `sealed under ${done.pinFile}`,
    );
    if (done.created)
      console.log(`${done.pinFile} was made anew: copy it to every other node of the cluster`);
  } catch (err) {
    if (err instanceof RootUnavailable)
      throw new Error(
        `The token refused: ${formatMessage(err.reason, 'en', err.params)}; nothing was changed`,
        { cause: err },
      );
    throw err;
  } finally {
    await database.close();
  }
}
