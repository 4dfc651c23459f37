import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { AgentConfig, AgentGuardPoint } from '@ksp/contracts';
import { encryptFile, isProtected } from './format.js';
import { keyFor } from './rules.js';

/** Temporary files of an in-place rewrite: `.<name>.ksp-tmp-<random>` next to the file. */
export const TEMP_MARK = '.ksp-tmp-';
/** A file modified less than this many ms ago is not encrypted yet. */
export const SETTLE_MS = 200;

/** The guard point holding `path` (absolute, resolved), and the path relative to it ("/a/b"). */
export function guardPointOf(
  config: AgentConfig | undefined,
  path: string,
): { gp: AgentGuardPoint; resource: string } | undefined {
  const abs = resolve(path);
  for (const gp of config?.guard_points ?? []) {
    if (!gp.enabled) continue;
    const root = resolve(gp.path);
    if (abs === root || abs.startsWith(root + sep)) {
      const rel = relative(root, abs).split(sep).join('/');
      return { gp, resource: `/${rel}` };
    }
  }
  return undefined;
}

/** Every regular file under `root` (symbolic links not followed), temporary files left out. */
export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.includes(TEMP_MARK)) continue;
      const path = join(dir, name);
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) out.push(path);
    }
  };
  walk(root);
  return out;
}

/** Replaces a file's content through a temporary file and a rename, keeping its mode. */
export function replaceFile(path: string, content: Buffer) {
  const mode = statSync(path).mode & 0o7777;
  const temp = join(dirname(path), `.${basename(path)}${TEMP_MARK}${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temp, content, { mode });
    chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

export interface ProtectResult {
  encrypted: string[];
  errors: { path: string; error: string }[];
}

/**
 * Encrypts the clear files of a standard guard point in place with the key its policy's key
 * rules choose (files whose rule says "clear" stay as they are; protected files are left alone).
 * `keyOf` gives the current version of a key id, or undefined when the agent lacks it.
 */
export function protectGuardPoint(
  gp: AgentGuardPoint,
  keyOf: (id: string) => { bytes: Buffer; version: number } | undefined,
): ProtectResult {
  const result: ProtectResult = { encrypted: [], errors: [] };
  const policy = gp.policy;
  if (!gp.enabled || !policy || policy.type !== 'standard') return result;
  const root = resolve(gp.path);
  for (const path of listFiles(root)) {
    const resource = `/${relative(root, path).split(sep).join('/')}`;
    const keyId = keyFor(policy.key_rules, resource);
    if (!keyId) continue;
    const key = keyOf(keyId);
    if (!key) {
      result.errors.push({ path, error: `key ${keyId} is not available` });
      continue;
    }
    try {
      // A file written this very moment is left for the next pass (its writer may not be done).
      if (Date.now() - statSync(path).mtimeMs < SETTLE_MS) continue;
      const data = readFileSync(path);
      if (isProtected(data)) continue;
      replaceFile(path, encryptFile(data, key.bytes, keyId, key.version));
      result.encrypted.push(path);
    } catch (err) {
      result.errors.push({ path, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}
