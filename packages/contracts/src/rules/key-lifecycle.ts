import { keyCalls } from '../calls/key.js';
import { keyStates, type KeyState } from '../calls/key-rows.js';

/**
 * The key state machine (docs/modules.md#key-states), shared by the server, which enforces it,
 * and the console, which offers only the actions it allows.
 */

/** The state changes: for each action, the state it leads to from each state it accepts. */
const transitions = {
  activate: { 'pre-active': 'active' },
  disable: { 'pre-active': 'deactivated', active: 'deactivated' },
  recover: { deactivated: 'active' },
  destroy: { 'pre-active': 'destroyed', deactivated: 'destroyed', compromised: 'destroyed-compromised' },
} as const satisfies Record<string, Partial<Record<KeyState, KeyState>>>;
export type KeyTransition = keyof typeof transitions;

/** Revoking for one of these reasons marks a key compromised, for good. */
export function isCompromiseReason(reason: string | null | undefined): boolean {
  return reason === 'key-compromise' || reason === 'ca-compromise';
}

/**
 * The state `action` takes a key to from `from`, or null when the state does not allow it.
 * `reason` is the revocation reason of `disable`.
 */
export function nextKeyState(action: KeyTransition, from: KeyState, reason?: string): KeyState | null {
  const to: KeyState | undefined = (transitions[action] as Partial<Record<KeyState, KeyState>>)[from];
  if (!to) return null;
  return action === 'disable' && isCompromiseReason(reason) ? 'compromised' : to;
}

/** The states that keep material (the key list shows only these unless asked for destroyed keys). */
export const liveKeyStates: readonly KeyState[] = keyStates.filter(
  (s) => s !== 'destroyed' && s !== 'destroyed-compromised',
);
const fromStates = (action: KeyTransition) => Object.keys(transitions[action]) as KeyState[];

/** The actions on one key the console offers, in its order; each is the contract call of that name. */
export const keyActions = [
  'addVersion',
  'activate',
  'disable',
  'recover',
  'clone',
  'export',
  'destroy',
  'delete',
] as const;
export type KeyAction = (typeof keyActions)[number];

/** The states each action starts from (a destroyed key keeps no material to clone or export). */
export const keyActionStates: Record<KeyAction, readonly KeyState[]> = {
  addVersion: ['active'],
  activate: fromStates('activate'),
  disable: fromStates('disable'),
  recover: fromStates('recover'),
  clone: liveKeyStates,
  export: liveKeyStates,
  destroy: fromStates('destroy'),
  delete: keyStates,
};

/** The permission each action needs: the access of its contract call. */
export const keyActionPermission: Record<KeyAction, string> = Object.fromEntries(
  keyActions.map((action) => [action, keyCalls[action].access]),
) as Record<KeyAction, string>;

export function keyStateAllows(action: KeyAction, state: KeyState): boolean {
  return keyActionStates[action].includes(state);
}

/** What besides its state decides whether an action applies to a key. */
export interface KeyActionFacts {
  state: KeyState;
  object_type: 'symmetric' | 'private' | 'public';
  exportable: boolean;
  deletable: boolean;
  linked_key_id: string | null;
}

/** The public half of a pair goes with its private key and is not deleted on its own. */
export function isPairedPublic(key: Pick<KeyActionFacts, 'object_type' | 'linked_key_id'>): boolean {
  return key.object_type === 'public' && key.linked_key_id !== null;
}

/** A public key imported alone (`key/import` of a public key): no private key behind it. */
export function isStandalonePublic(key: Pick<KeyActionFacts, 'object_type' | 'linked_key_id'>): boolean {
  return key.object_type === 'public' && key.linked_key_id === null;
}

/**
 * Whether a key's state and flags allow an action. A public key imported alone has no
 * private key: it gets no new version and is not cloned. A public key is no secret: it exports
 * in every state, without the exportable flag.
 */
export function keyActionAllowed(action: KeyAction, key: KeyActionFacts): boolean {
  switch (action) {
    case 'export':
      return key.object_type === 'public' || (key.exportable && keyStateAllows('export', key.state));
    case 'delete':
      return key.deletable && !isPairedPublic(key);
    case 'addVersion':
    case 'clone':
      return !isStandalonePublic(key) && keyStateAllows(action, key.state);
    default:
      return keyStateAllows(action, key.state);
  }
}

/** The actions a caller holding `permissions` may take on a key, in the console's order. */
export function availableKeyActions(key: KeyActionFacts, permissions: ReadonlySet<string>): KeyAction[] {
  return keyActions.filter(
    (action) => permissions.has(keyActionPermission[action]) && keyActionAllowed(action, key),
  );
}
