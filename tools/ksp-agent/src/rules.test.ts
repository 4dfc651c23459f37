import { describe, expect, it } from 'vitest';
import type { AgentSecurityRule } from '@ksp/contracts';
import { evaluate, globMatch, keyFor, resourceMatches, type Access } from './rules.js';

const alice = { uid: 1000, gid: 1000, uname: 'alice', gname: 'staff' };
const bob = { uid: 1001, gid: 1000, uname: 'bob', gname: 'staff' };
const access = (o: Partial<Access> = {}): Access => ({
  user: alice,
  process: { path: '/usr/bin/cat' },
  resource: '/reports/q1.txt',
  action: 'read',
  ...o,
});
const rule = (order: number, r: Partial<AgentSecurityRule>): AgentSecurityRule => ({
  order,
  actions: ['all_ops'],
  effects: ['permit'],
  ...r,
});

describe('evaluate: the first matching rule decides', () => {
  const rules: AgentSecurityRule[] = [
    rule(3, { effects: ['deny'] }),
    rule(1, { users: [{ uid: 1000 }], effects: ['permit', 'applykey'] }),
    rule(2, {
      users: [{ uname: 'bob' }],
      resources: [{ directory: '/reports', include_subfolders: false }],
      effects: ['permit', 'audit'],
    }),
  ];
  const table: [
    string,
    Access,
    { permit: boolean; audit: boolean; applykey: boolean; rule: number | null },
  ][] = [
    [
      'alice by uid: permit with the key (rule 1, though listed second)',
      access(),
      { permit: true, audit: false, applykey: true, rule: 1 },
    ],
    [
      'bob in /reports: permit, audited, ciphertext (no applykey)',
      access({ user: bob }),
      { permit: true, audit: true, applykey: false, rule: 2 },
    ],
    [
      'bob in a subfolder: rule 2 does not include subfolders, so the deny rule',
      access({ user: bob, resource: '/reports/old/q.txt' }),
      { permit: false, audit: true, applykey: false, rule: 3 },
    ],
    [
      'another uid: denied by the last rule',
      access({ user: { uid: 5, gid: 5 } }),
      { permit: false, audit: true, applykey: false, rule: 3 },
    ],
  ];
  it.each(table)('%s', (_name, a, expected) => {
    expect(evaluate(rules, a)).toMatchObject(expected);
  });

  it('no matching rule denies; an action not listed does not match', () => {
    expect(evaluate([rule(1, { actions: ['write'] })], access())).toMatchObject({
      permit: false,
      rule: null,
    });
    expect(evaluate([rule(1, { actions: ['read'] })], access())).toMatchObject({ permit: true, rule: 1 });
  });

  it('deny wins over permit within one rule; audit alone does not permit', () => {
    expect(evaluate([rule(1, { effects: ['permit', 'deny'] })], access()).permit).toBe(false);
    expect(evaluate([rule(1, { effects: ['audit'] })], access())).toMatchObject({
      permit: false,
      audit: true,
    });
  });

  it('learn mode turns a deny into permit + audit (key applied), and marks it learned', () => {
    expect(evaluate([rule(1, { effects: ['deny'] })], access(), true)).toEqual({
      permit: true,
      audit: true,
      applykey: true,
      rule: 1,
      learned: true,
    });
    expect(evaluate([], access(), true)).toMatchObject({ permit: true, learned: true, rule: null });
    expect(evaluate([rule(1, { effects: ['permit'] })], access(), true).learned).toBe(false);
  });

  it('exclude flags invert a set: everyone but alice, every process but cat, every file but *.log', () => {
    const r = [
      rule(1, { users: [{ uname: 'alice' }], exclude_users: true, effects: ['deny'] }),
      rule(2, {
        processes: [{ directory: '/usr/bin', file: 'cat' }],
        exclude_processes: true,
        effects: ['deny'],
      }),
      rule(3, {
        resources: [{ directory: '/', file: '*.log', include_subfolders: true }],
        exclude_resources: true,
        effects: ['permit', 'applykey'],
      }),
    ];
    expect(evaluate(r, access({ user: bob })).rule).toBe(1);
    expect(evaluate(r, access({ process: { path: '/usr/bin/vim' } })).rule).toBe(2);
    expect(evaluate(r, access())).toMatchObject({ permit: true, rule: 3 });
    expect(evaluate(r, access({ resource: '/a/b/x.log' }))).toMatchObject({ permit: false, rule: null });
  });

  it('processes match by directory, file glob and SHA-256', () => {
    const r = [rule(1, { processes: [{ directory: '/usr/bin/', file: 'ca?', sha256: ['AB12'] }] })];
    expect(evaluate(r, access({ process: { path: '/usr/bin/cat', sha256: 'ab12' } })).permit).toBe(true);
    expect(evaluate(r, access({ process: { path: '/usr/bin/cat', sha256: 'ffff' } })).permit).toBe(false);
    expect(evaluate(r, access({ process: { path: '/usr/bin/cat' } })).permit).toBe(false);
    expect(evaluate(r, access({ process: { path: '/bin/cat', sha256: 'ab12' } })).permit).toBe(false);
  });

  it('users match only when every field given matches', () => {
    const r = [
      rule(1, {
        users: [
          { uname: 'alice', gid: 2000 },
          { gname: 'staff', uid: 1001 },
        ],
      }),
    ];
    expect(evaluate(r, access()).permit).toBe(false);
    expect(evaluate(r, access({ user: bob })).permit).toBe(true);
  });
});

describe('resources and key rules', () => {
  it('globs stay within one path segment; directories are relative to the guard point', () => {
    expect(globMatch('*.txt', 'a.txt')).toBe(true);
    expect(globMatch('*.txt', 'a/b.txt')).toBe(false);
    expect(resourceMatches({ directory: '/', include_subfolders: false }, '/a.txt')).toBe(true);
    expect(resourceMatches({ directory: '/', include_subfolders: false }, '/d/a.txt')).toBe(false);
    expect(resourceMatches({ directory: '/', include_subfolders: true }, '/d/a.txt')).toBe(true);
    expect(resourceMatches({ directory: 'd', file: 'a.*', include_subfolders: false }, '/d/a.txt')).toBe(
      true,
    );
    expect(resourceMatches({ directory: '/d', include_subfolders: true }, '/dd/a.txt')).toBe(false);
  });

  it('the first matching key rule chooses the key; null keeps files in clear', () => {
    const rules = [
      { order: 2, key_id: 'k-main' },
      { order: 1, resources: [{ directory: '/public', include_subfolders: true }], key_id: null },
    ];
    expect(keyFor(rules, '/public/x')).toBeNull();
    expect(keyFor(rules, '/secret/x')).toBe('k-main');
    expect(keyFor([], '/x')).toBeUndefined();
  });
});
