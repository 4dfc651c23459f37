import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Access } from './call.js';
import { allCalls, consoleAreas, offeredPermissionGroups, servedAreas } from './index.js';
import { areas, builtInRoles, isPermission, permissions, type Permission } from './permissions.js';

describe('permissions', () => {
  it('are typed: the real permission strings only', () => {
    expectTypeOf<'key:use'>().toExtend<Permission>();
    expectTypeOf<'credential:use'>().toExtend<Permission>();
    expectTypeOf<'dashboard:read'>().toExtend<Permission>();
    expectTypeOf<'dashboard:write'>().not.toExtend<Permission>();
    expectTypeOf<'user:use'>().not.toExtend<Permission>();
    expectTypeOf<'key:fly'>().not.toExtend<Permission>();
    // @ts-expect-error a permission nobody defines is refused where a Permission is wanted
    const typo: Permission = 'key:wirte';
    expect(isPermission(typo)).toBe(false);
  });

  it('are what a call may require: a misspelt access does not type-check', () => {
    expectTypeOf<'key:use'>().toExtend<Access>();
    expectTypeOf<'session'>().toExtend<Access>();
    expectTypeOf<'key:wirte'>().not.toExtend<Access>();
    // @ts-expect-error a call's access is 'public', 'session' or a real permission
    const typo: Access = 'user:raed';
    expect(isPermission(typo)).toBe(false);
  });

  it('are read for every area, write unless the area is only looked at, and the extra verbs', () => {
    for (const area of areas) expect(permissions).toContain(`${area}:read`);
    expect(permissions).toContain('user:write');
    expect(permissions).not.toContain('dashboard:write');
    expect(permissions).not.toContain('product:write');
    expect(permissions.filter((p) => !/:(read|write)$/.test(p))).toEqual([
      'key:use',
      'key:export',
      'cert:export',
      'credential:use',
    ]);
    expect(new Set(permissions).size).toBe(permissions.length);
  });

  it('tells a permission from other strings', () => {
    expect(isPermission('key:export')).toBe(true);
    expect(isPermission('key:')).toBe(false);
    expect(isPermission('dashboard:write')).toBe(false);
  });

  it('shape the built-in roles: Operator neither reads logs nor writes users, Auditor only reads', () => {
    expect(builtInRoles.Administrator.permissions).toHaveLength(permissions.length);
    expect(builtInRoles.Operator.permissions).toContain('key:write');
    expect(builtInRoles.Operator.permissions).toContain('credential:use');
    expect(builtInRoles.Operator.permissions).not.toContain('log:read');
    expect(builtInRoles.Operator.permissions).not.toContain('alarm:read');
    expect(builtInRoles.Operator.permissions).not.toContain('user:write');
    expect(builtInRoles.Operator.permissions).not.toContain('key:export');
    expect(builtInRoles.Auditor.permissions.every((p) => p.endsWith(':read'))).toBe(true);
    expect(builtInRoles.Auditor.permissions).toContain('log:read');
    expect(builtInRoles.Auditor.permissions).toContain('alarm:read');
    expect(builtInRoles.Auditor.permissions).not.toContain('alarm:write');
  });
});

describe('served areas', () => {
  it('are the areas some call asks a permission of, not the sub-consoles whose only call hands out a token', () => {
    expect([...servedAreas].sort()).toEqual(
      [
        'alarm',
        'backup',
        'backup-key',
        'cert',
        'config',
        'credential',
        'cte',
        'dashboard',
        'domain',
        'key',
        'ldap',
        'hsm',
        'kadp',
        'kmip',
        'license',
        'log',
        'password-policy',
        'product',
        'quantum',
        'rdm',
        'role',
        'scheduler',
        'syslog',
        'token',
        'user',
      ].sort(),
    );
    // The KADP token call asks kadp:read; KADP is served because its client calls, which a KADP
    // token may make, ask it too. TDE and RDM are served by their policy calls (tde-policy).
    expect(allCalls.some((call) => call.access === consoleAreas.kadp.permission)).toBe(true);
    expect(servedAreas.has('kadp')).toBe(true);
    // TDE and RDM are served by their client and policy calls (the token calls alone would not
    // serve them); KMS (key) by the key calls a KMS token may make.
    expect(servedAreas.has('cte')).toBe(true);
    expect(servedAreas.has('rdm')).toBe(true);
    expect(servedAreas.has('key')).toBe(true);
  });

  it('shape the offered tree: served areas only, in menu order, no empty group', () => {
    const offered = offeredPermissionGroups();
    expect(offered.map((group) => group.key)).toEqual([
      'dashboard',
      'product',
      'access',
      'keys',
      'certificates',
      'log',
      'settings',
      'sub-consoles',
    ]);
    expect(offered.find((group) => group.key === 'sub-consoles')?.areas).toEqual([
      'cte',
      'rdm',
      'kadp',
      'credential',
    ]);
    expect(offered.find((group) => group.key === 'settings')?.areas).toEqual([
      'domain',
      'license',
      'password-policy',
      'backup-key',
      'hsm',
      'backup',
      'scheduler',
      'syslog',
      'config',
      'quantum',
    ]);
  });
});
