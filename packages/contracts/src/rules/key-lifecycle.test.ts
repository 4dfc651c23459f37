import { describe, expect, it } from 'vitest';
import { keyCalls } from '../calls/key.js';
import { keyStates, type KeyState } from '../calls/key-rows.js';
import {
  availableKeyActions,
  isCompromiseReason,
  isPairedPublic,
  isStandalonePublic,
  keyActionAllowed,
  keyActionPermission,
  keyActions,
  keyStateAllows,
  nextKeyState,
  type KeyActionFacts,
} from './key-lifecycle.js';

const key = (overrides: Partial<KeyActionFacts> = {}): KeyActionFacts => ({
  state: 'active',
  object_type: 'symmetric',
  exportable: false,
  deletable: true,
  linked_key_id: null,
  ...overrides,
});

describe('key state machine', () => {
  it('moves keys along the KMIP transitions and nowhere else', () => {
    const table = (action: Parameters<typeof nextKeyState>[0], reason?: string) =>
      Object.fromEntries(keyStates.map((s) => [s, nextKeyState(action, s, reason)]));
    expect(table('activate')).toEqual({
      'pre-active': 'active',
      active: null,
      deactivated: null,
      compromised: null,
      destroyed: null,
      'destroyed-compromised': null,
    });
    expect(table('disable')).toMatchObject({ 'pre-active': 'deactivated', active: 'deactivated' });
    expect(table('disable', 'key-compromise')).toMatchObject({
      'pre-active': 'compromised',
      active: 'compromised',
      deactivated: null,
    });
    expect(table('recover')).toMatchObject({ deactivated: 'active', compromised: null, active: null });
    expect(table('destroy')).toEqual({
      'pre-active': 'destroyed',
      active: null,
      deactivated: 'destroyed',
      compromised: 'destroyed-compromised',
      destroyed: null,
      'destroyed-compromised': null,
    });
  });

  it('never leaves a destroyed state', () => {
    for (const state of ['destroyed', 'destroyed-compromised'] as KeyState[]) {
      for (const action of ['activate', 'disable', 'recover', 'destroy'] as const) {
        expect(nextKeyState(action, state)).toBeNull();
      }
      expect(keyStateAllows('addVersion', state)).toBe(false);
      expect(keyStateAllows('clone', state)).toBe(false);
      expect(keyStateAllows('delete', state)).toBe(true);
    }
  });

  it('knows the compromise reasons', () => {
    expect(isCompromiseReason('key-compromise')).toBe(true);
    expect(isCompromiseReason('ca-compromise')).toBe(true);
    expect(isCompromiseReason('superseded')).toBe(false);
    expect(isCompromiseReason(null)).toBe(false);
  });
});

describe('key actions', () => {
  it('need the permission of their contract call', () => {
    expect(keyActionPermission).toEqual({
      addVersion: 'key:write',
      activate: 'key:write',
      disable: 'key:write',
      recover: 'key:write',
      clone: 'key:write',
      export: 'key:export',
      destroy: 'key:write',
      delete: 'key:write',
    });
    for (const action of keyActions) expect(keyCalls[action].access).toBe(keyActionPermission[action]);
  });

  it('export only exportable live keys, and public keys always', () => {
    expect(keyActionAllowed('export', key())).toBe(false);
    expect(keyActionAllowed('export', key({ exportable: true }))).toBe(true);
    expect(keyActionAllowed('export', key({ exportable: true, state: 'destroyed' }))).toBe(false);
    const pub = key({ object_type: 'public', linked_key_id: 'k1', state: 'destroyed' });
    expect(keyActionAllowed('export', pub)).toBe(true);
  });

  it('delete deletable keys, a paired public key only with its private key', () => {
    expect(keyActionAllowed('delete', key({ deletable: false }))).toBe(false);
    const pub = key({ object_type: 'public', linked_key_id: 'k1' });
    expect(isPairedPublic(pub)).toBe(true);
    expect(keyActionAllowed('delete', pub)).toBe(false);
    expect(keyActionAllowed('delete', key({ object_type: 'public' }))).toBe(true);
  });

  it('give a public key imported alone no new version and no clone', () => {
    const alone = key({ object_type: 'public', linked_key_id: null });
    expect(isStandalonePublic(alone)).toBe(true);
    expect(keyActionAllowed('addVersion', alone)).toBe(false);
    expect(keyActionAllowed('clone', alone)).toBe(false);
    expect(keyActionAllowed('disable', alone)).toBe(true);
    const paired = key({ object_type: 'public', linked_key_id: 'k1' });
    expect(isStandalonePublic(paired)).toBe(false);
    expect(keyActionAllowed('addVersion', paired)).toBe(true);
  });

  it('lists what a caller may do, in order', () => {
    const all = new Set(['key:read', 'key:write', 'key:export']);
    expect(availableKeyActions(key(), all)).toEqual(['addVersion', 'disable', 'clone', 'delete']);
    expect(availableKeyActions(key({ state: 'compromised', exportable: true }), all)).toEqual([
      'clone',
      'export',
      'destroy',
      'delete',
    ]);
    expect(availableKeyActions(key({ exportable: true }), new Set(['key:export']))).toEqual(['export']);
    expect(availableKeyActions(key(), new Set(['key:read']))).toEqual([]);
  });
});
