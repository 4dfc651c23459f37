#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { currentUser, enrol, readAs, run } from './agent.js';
import { AUTH_USER_ENV, authenticatedUser, refuseWhenLocked } from './auth-binary.js';
import { guardPointOf } from './guard.js';
import { AgentState } from './state.js';

const USAGE = `ksp-agent — reference KSP agent (a user-space stand-in for a kernel agent)

  ksp-agent enrol --server URL --token SECRET --name NAME [--type tde|rdm] [--key ec|rsa] [--ca FILE]
  ksp-agent run [--heartbeat-s N] [--wait-s N]
  ksp-agent cat FILE...
  ksp-agent exec -- PROGRAM [ARGS...]
  ksp-agent status
  ksp-agent unenrol

cat and exec honour ${AUTH_USER_ENV} (the authenticated user) only when started by an
authorised authenticator binary of the client. enrol and unenrol are refused while KSP has
locked the client.

Every command takes --state DIR (default $KSP_AGENT_STATE or /var/lib/ksp-agent).`;

function parse(argv: string[]) {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=', 2) as [string, string | undefined];
      flags[k] = v ?? argv[++i] ?? '';
    } else rest.push(a);
  }
  return { flags, rest };
}

/** The user a read is decided for: the authenticated one when an authorised binary vouches for it. */
function readingUser(state: AgentState) {
  const resolution = authenticatedUser(state.config());
  if (resolution.kind === 'ignored')
    console.error(`ksp-agent: ${AUTH_USER_ENV} ignored: ${resolution.reason}`);
  return resolution.kind === 'authenticated' ? resolution.user : currentUser();
}

function need(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (!v) throw new Error(`--${name} is required`);
  return v;
}

/** The executable `exec` runs, found like a shell does. */
function which(program: string): string {
  if (program.includes('/')) return resolve(program);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, program);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${program}: not found`);
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const { flags, rest } = parse(args);
  const state = new AgentState(resolve(flags.state ?? process.env.KSP_AGENT_STATE ?? '/var/lib/ksp-agent'));
  switch (command) {
    case 'enrol': {
      if (state.enrolled()) refuseWhenLocked(state.config(), 'enrol');
      const id = await enrol(state, {
        server: need(flags, 'server'),
        token: need(flags, 'token'),
        name: need(flags, 'name'),
        type: flags.type ?? 'tde',
        keyType: flags.key === 'rsa' ? 'rsa' : 'ec',
        ...(flags.ca ? { ca: resolve(flags.ca) } : {}),
      });
      console.log(JSON.stringify({ client_id: id.client_id, state: state.dir }));
      return 0;
    }
    case 'run': {
      const controller = new AbortController();
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => controller.abort());
      await run(state, {
        ...(flags['heartbeat-s'] ? { heartbeatSeconds: Number(flags['heartbeat-s']) } : {}),
        ...(flags['wait-s'] ? { waitSeconds: Number(flags['wait-s']) } : {}),
        signal: controller.signal,
      });
      return 0;
    }
    case 'cat': {
      let status = 0;
      const user = readingUser(state);
      for (const file of rest) {
        // The reader is this agent process itself.
        const out = await readAs(state, file, process.execPath, user);
        if (!out.data) {
          console.error(`ksp-agent: ${file}: permission denied by policy`);
          status = 1;
          continue;
        }
        process.stdout.write(out.data);
      }
      return status;
    }
    case 'exec': {
      const [program, ...programArgs] = rest;
      if (!program) throw new Error('exec: a program is required');
      const exe = which(program);
      const config = state.config();
      const user = readingUser(state);
      const temp = mkdtempSync(join(tmpdir(), 'ksp-agent-exec-'));
      try {
        const mapped: string[] = [];
        for (const arg of programArgs) {
          if (!guardPointOf(config, arg) || !existsSync(arg)) {
            mapped.push(arg);
            continue;
          }
          const out = await readAs(state, arg, exe, user);
          if (!out.data) {
            console.error(`ksp-agent: ${arg}: permission denied by policy for ${exe}`);
            return 1;
          }
          // The program sees the file's content through a private copy (0600 in a 0700 directory).
          const copy = join(temp, `${mapped.length}-${arg.split('/').pop() ?? 'file'}`);
          writeFileSync(copy, out.data, { mode: 0o600 });
          mapped.push(copy);
        }
        const result = spawnSync(exe, mapped, { stdio: 'inherit' });
        return result.status ?? 1;
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    }
    case 'status': {
      const id = state.identity();
      const config = state.config();
      console.log(
        JSON.stringify(
          {
            ...id,
            config_version: config?.version ?? 0,
            guard_points:
              config?.guard_points.map((g) => ({
                path: g.path,
                type: g.type,
                enabled: g.enabled,
                policy: g.policy?.name ?? null,
              })) ?? [],
            keys: config?.keys.map((k) => ({ id: k.id, name: k.name, version: k.version })) ?? [],
            locked: config?.client_locked ?? false,
            auth_binaries:
              config?.auth_binaries?.map((b) => ({
                filename: b.filename,
                privilege: b.privilege,
                signed: b.sha256 !== undefined,
                origin: b.origin.kind === 'group' ? `group ${b.origin.name}` : 'client',
              })) ?? [],
          },
          null,
          2,
        ),
      );
      return 0;
    }
    case 'unenrol': {
      // Forgets the local enrolment (key, certificate, configuration); the server's client stays
      // until it is deleted in the console.
      refuseWhenLocked(state.config(), 'unenrol');
      const id = state.identity();
      for (const name of [
        'agent.key',
        'agent.pem',
        'chain.pem',
        'agent.json',
        'config.json',
        'keys.json',
        'pending-logs.jsonl',
      ])
        rmSync(state.file(name), { force: true });
      console.log(JSON.stringify({ unenrolled: id.client_id, state: state.dir }));
      return 0;
    }
    default:
      console.log(USAGE);
      return command ? 2 : 0;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`ksp-agent: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
