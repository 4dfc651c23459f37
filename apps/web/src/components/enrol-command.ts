/** The client types an agent enrols as (a TDE agent uses a "cte" registration token). */
export const enrolTypes = ['tde', 'rdm', 'kadp'] as const;
export type EnrolType = (typeof enrolTypes)[number];

/** The registration token usage → the agent's `--type`. */
export const enrolTypeOfUsage: Record<string, EnrolType | undefined> = {
  cte: 'tde',
  rdm: 'rdm',
  kadp: 'kadp',
};

/**
 * What may go into the command as typed: a token as the server makes them (`ksprt_` + base64url)
 * and a host-name-like client name. Anything else (quotes, spaces, `$`, `;`) is refused, so a
 * crafted link cannot put a shell command into what the operator copies.
 */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface EnrolInput {
  server: string;
  token: string;
  type: EnrolType;
  /** Empty: the host's own name. */
  name: string;
}

/** The Linux (sh) command: `ksp-agent enrol --server … --token … --type … --name …`. */
export function linuxCommand(i: EnrolInput): string {
  const name = i.name ? `'${i.name}'` : '"$(hostname)"';
  return `sudo ksp-agent enrol --server '${i.server}' --token '${i.token}' --type ${i.type} --name ${name} --state /var/lib/ksp-agent`;
}

/** The Windows (PowerShell) command. */
export function windowsCommand(i: EnrolInput): string {
  const name = i.name ? `'${i.name}'` : '$env:COMPUTERNAME';
  return `ksp-agent.exe enrol --server '${i.server}' --token '${i.token}' --type ${i.type} --name ${name} --state "$env:ProgramData\\ksp-agent"`;
}

/** Reads `#token=…&type=…` (the registration tokens page's link); nothing else is taken. */
export function readFragment(hash: string): { token: string; type: EnrolType | null } {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const type = params.get('type');
  return {
    token: params.get('token') ?? '',
    type: (enrolTypes as readonly string[]).includes(type ?? '') ? (type as EnrolType) : null,
  };
}
