import type { Catalogue } from './catalogue';
import * as catalogues from './namespaces';

type Catalogues = typeof catalogues;
export type Namespace = keyof Catalogues;
type Language = 'en' | 'zh';

/**
 * Each namespace's Chinese has exactly its English keys: a key missing on either side
 * fails tsc (the test checks it again at run time).
 */
const pairs: {
  [N in Namespace]: { en: Catalogue<Catalogues[N]['zh']>; zh: Catalogue<Catalogues[N]['en']> };
} = catalogues;

/** All namespaces, `common` (the default) first, so that typed `t` accepts every `namespace:key`. */
export const namespaces = [
  'common',
  ...(Object.keys(pairs) as Namespace[]).filter((ns) => ns !== 'common'),
] as const;

function catalogueOf<L extends Language>(language: L) {
  return Object.fromEntries(namespaces.map((ns) => [ns, catalogues[ns][language]])) as {
    [N in Namespace]: Catalogues[N][L];
  };
}

/** English defines every key; Chinese must have the same keys (checked by tsc and by a test). */
export const en = catalogueOf('en');
export const zh: Catalogue<typeof en> = catalogueOf('zh');

export const resources = { en, zh };

export type MenuTitleKey = keyof typeof en.menu;

export function isMenuTitleKey(value: string): value is MenuTitleKey {
  return Object.hasOwn(en.menu, value);
}
