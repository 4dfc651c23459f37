import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createPrivateKey as toKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { AgentConfig, AgentKey } from '@ksp/contracts';

/**
 * The state directory (README.md "State directory"), mode 0700, every file 0600:
 * `agent.key` (the private key, PKCS#8 PEM; it never leaves the host), `agent.pem` (the client
 * certificate), `agent.json` (server, client id, name, type, last heartbeat), `config.json`
 * (the last configuration, keys still wrapped), `keys.json` (every wrapped key version seen, so
 * older files stay readable), `pending-logs.jsonl` (records not uploaded yet).
 */
export interface AgentIdentity {
  server: string;
  client_id: string;
  name: string;
  type: string;
  /** A CA file (PEM) to trust for https, when the server's certificate is not publicly trusted. */
  ca?: string;
  heartbeat_seconds: number;
  /** The server's agent listener (same host and scheme) the heartbeats go to; absent or null: the server's URL. */
  heartbeat_port?: number | null;
  last_heartbeat_at?: string;
  last_heartbeat_state?: string;
  config_version?: number;
}

export class AgentState {
  constructor(readonly dir: string) {}

  file(name: string) {
    return join(this.dir, name);
  }

  ensureDir() {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
  }

  /** Writes a file 0600 through a temporary file and a rename (never half written). */
  write(name: string, content: string | Buffer) {
    const target = this.file(name);
    const temp = `${target}.tmp-${process.pid}`;
    writeFileSync(temp, content, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, target);
  }

  read(name: string): string | undefined {
    const path = this.file(name);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  }

  enrolled(): boolean {
    return existsSync(this.file('agent.json'));
  }

  identity(): AgentIdentity {
    const text = this.read('agent.json');
    if (!text) throw new Error(`not enrolled: no ${this.file('agent.json')} (run "ksp-agent enrol" first)`);
    return JSON.parse(text) as AgentIdentity;
  }

  saveIdentity(identity: AgentIdentity) {
    this.write('agent.json', `${JSON.stringify(identity, null, 2)}\n`);
  }

  privateKey(): KeyObject {
    return toKey(readFileSync(this.file('agent.key')));
  }

  certificate(): string {
    return readFileSync(this.file('agent.pem'), 'utf8');
  }

  config(): AgentConfig | undefined {
    const text = this.read('config.json');
    return text ? (JSON.parse(text) as AgentConfig) : undefined;
  }

  /** Keeps the configuration and adds its wrapped keys to the history of key versions. */
  saveConfig(config: AgentConfig) {
    const history = this.keyHistory();
    for (const key of config.keys) history[`${key.id}:${key.version}`] = key;
    this.write('keys.json', JSON.stringify(history));
    this.write('config.json', JSON.stringify(config));
  }

  keyHistory(): Record<string, AgentKey> {
    const text = this.read('keys.json');
    return text ? (JSON.parse(text) as Record<string, AgentKey>) : {};
  }
}
