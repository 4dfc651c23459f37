import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '@ksp/contracts';
import { AUTH_USER_ENV, authenticatedUser, refuseWhenLocked, type AuthProbe } from './auth-binary.js';

const config = (extra: Partial<AgentConfig>): AgentConfig => ({
  client_id: 'c1',
  version: 3,
  profile: null,
  guard_points: [],
  keys: [],
  ...extra,
});

const alice = { uid: 1001, gid: 1001, uname: 'alice', gname: 'alice' };
const probe = (o: Partial<AuthProbe> & { user?: string; parent?: string; hash?: string }): AuthProbe => ({
  env: o.user === undefined ? {} : { [AUTH_USER_ENV]: o.user },
  parentExe: () => o.parent,
  sha256: () => o.hash ?? 'ab'.repeat(32),
  lookupUser: (name) => (name === 'alice' || name === '1001' ? alice : undefined),
});

const withSshd = config({
  auth_binaries: [
    {
      filename: '/usr/sbin/sshd',
      privilege: 'authenticator',
      sha256: ['cd'.repeat(32)],
      origin: { kind: 'client' },
    },
    {
      filename: '/bin/su',
      privilege: 'authenticator_uid',
      origin: { kind: 'group', id: 'g', name: 'logins' },
    },
  ],
});

describe('authenticated user (KSP_AGENT_AUTH_USER)', () => {
  it('is honoured only when the parent process is an authorised authenticator binary', () => {
    expect(authenticatedUser(withSshd, probe({ parent: '/bin/su' }))).toEqual({ kind: 'none' });
    expect(authenticatedUser(withSshd, probe({ user: 'alice', parent: '/bin/su' }))).toMatchObject({
      kind: 'authenticated',
      user: alice,
      binary: { filename: '/bin/su' },
    });
    expect(authenticatedUser(withSshd, probe({ user: '1001', parent: '/bin/su' }))).toMatchObject({
      kind: 'authenticated',
      user: alice,
    });
    const bash = authenticatedUser(withSshd, probe({ user: 'alice', parent: '/bin/bash' }));
    expect(bash).toEqual({ kind: 'ignored', reason: '/bin/bash is not an authorised authenticator binary' });
    expect(authenticatedUser(config({}), probe({ user: 'alice', parent: '/bin/su' })).kind).toBe('ignored');
    expect(authenticatedUser(withSshd, probe({ user: 'mallory', parent: '/bin/su' }))).toMatchObject({
      kind: 'ignored',
      reason: 'user mallory is unknown on this host',
    });
  });

  it("checks the executable's hash when the entry has a signature set", () => {
    expect(authenticatedUser(withSshd, probe({ user: 'alice', parent: '/usr/sbin/sshd' })).kind).toBe(
      'ignored',
    );
    expect(
      authenticatedUser(withSshd, probe({ user: 'alice', parent: '/usr/sbin/sshd', hash: 'cd'.repeat(32) }))
        .kind,
    ).toBe('authenticated');
  });
});

describe('client lock', () => {
  it('refuses local changes of the configuration while locked', () => {
    expect(() => refuseWhenLocked(config({ client_locked: true }), 'unenrol')).toThrow(
      /unenrol refused: this client is locked by KSP/,
    );
    expect(() => refuseWhenLocked(config({ client_locked: false }), 'unenrol')).not.toThrow();
    expect(() => refuseWhenLocked(undefined, 'enrol')).not.toThrow();
  });
});
