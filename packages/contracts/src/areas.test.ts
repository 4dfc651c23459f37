import { describe, expect, it } from 'vitest';
import { consoleAreaOf, consoleAreas, permissionAreaOfToken } from './areas.js';
import { tokenKinds } from './call.js';
import { isPermission } from './permissions.js';

describe('console areas', () => {
  it('tell the area of a path by its first segment, the main console by default', () => {
    expect(consoleAreaOf('/console/dashboard')).toBe('console');
    expect(consoleAreaOf('/cte/clients/main')).toBe('cte');
    expect(consoleAreaOf('/rdm/policies/policies')).toBe('rdm');
    expect(consoleAreaOf('/kadp/clients')).toBe('kadp');
    expect(consoleAreaOf('/credential/cred/index')).toBe('credential');
    expect(consoleAreaOf('/kms/key/detail/1')).toBe('kms');
    expect(consoleAreaOf('/kmsx/key')).toBe('console');
    expect(consoleAreaOf('/404')).toBe('console');
    expect(consoleAreaOf('/')).toBe('console');
  });

  it('open with a real read permission, and have distinct paths and own token kinds', () => {
    const defs = Object.values(consoleAreas);
    for (const def of defs) {
      if (def.permission) expect(isPermission(def.permission) && def.permission.endsWith(':read')).toBe(true);
      expect(tokenKinds).toContain(def.token);
    }
    expect(new Set(defs.map((d) => d.path)).size).toBe(defs.length);
    const own = defs.map((d) => d.token).filter((kind) => kind !== 'session');
    expect(new Set(own).size).toBe(own.length);
  });

  it('limit a sub-console token to its own permission area', () => {
    expect(permissionAreaOfToken('kadp')).toBe('kadp');
    expect(permissionAreaOfToken('sms')).toBe('credential');
    expect(permissionAreaOfToken('cte')).toBe('cte');
    expect(permissionAreaOfToken('rdm')).toBe('rdm');
    expect(permissionAreaOfToken('kms')).toBe('key');
    expect(permissionAreaOfToken('session')).toBeUndefined();
    expect(permissionAreaOfToken('app')).toBeUndefined();
  });
});
