import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { api, PRODUCT_VERSION, TOKEN_HEADER, VERSION_HEADER, type CallDef } from '@ksp/contracts';

/**
 * Unattended first run against a running server: the same public calls the console
 * makes. Passwords come from an environment variable or a file, never from argv.
 */
const usage = `Usage:
  ksp status [--url URL]
  ksp log-verify [--url URL] --user USER (--password-env VAR | --password-file FILE)
  ksp init   [--url URL] [--components N] --admin USER --email EMAIL
             (--password-env VAR | --password-file FILE)
             [--setup-code CODE | --data-dir DIR]

  --url          server address (default http://127.0.0.1:8080, or KSP_URL)
  --components   number of root key components, 2 to 9 (default 3)
  --setup-code   the one-time code a server on a network address prints at start
  --data-dir     the server's data directory (default KSP_DATA_DIR or ./data): on the server's
                 machine, the code is read from its file setup-code when --setup-code is not given

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

run().catch((err: unknown) => {
  console.error(`ksp: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
