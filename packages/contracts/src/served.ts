import { allCalls } from './api.js';
import { tokensOf, type CallDef } from './call.js';
import { consoleAreas } from './areas.js';
import { areaOf, permissionGroups, type Area, type PermissionGroup } from './permissions.js';

/** Permissions whose only call hands out a sub-console's token: they open no page yet. */
const subConsoleOpeners = new Set<string>(
  Object.values(consoleAreas).flatMap((def) =>
    def.token !== 'session' && def.permission ? [def.permission] : [],
  ),
);

/** A call of a sub-console's permission that the sub-console's own token may make: one of its pages' calls. */
function servesItsSubConsole(call: CallDef): boolean {
  const owner = Object.values(consoleAreas).find((def) => def.permission === call.access);
  return !!owner && owner.token !== 'session' && tokensOf(call).includes(owner.token);
}

/**
 * The areas the server serves today: those some call asks a permission of (a sub-console's
 * token call alone does not count). The role editor offers only these, so an area that
 * lands with its calls is offered without another list to edit. Stored roles may still
 * hold permissions of the others.
 */
export const servedAreas: ReadonlySet<Area> = new Set(
  allCalls.flatMap((call) =>
    call.access === 'public' ||
    call.access === 'session' ||
    (subConsoleOpeners.has(call.access) && !servesItsSubConsole(call))
      ? []
      : [areaOf(call.access) as Area],
  ),
);

/** The permission tree's groups as the role editor offers them: served areas only, no empty group. */
export function offeredPermissionGroups(): PermissionGroup[] {
  return permissionGroups
    .map((group) => ({ key: group.key, areas: group.areas.filter((area) => servedAreas.has(area)) }))
    .filter((group) => group.areas.length > 0);
}
