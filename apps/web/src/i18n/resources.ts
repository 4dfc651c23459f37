import type { Catalogue } from './catalogue';
import * as catalogues from './namespaces';

type Catalogues = typeof catalogues;
export type Namespace = keyof Catalogues;
type Chinese<N extends Namespace> = Awaited<ReturnType<Catalogues[N]['zh']>>;

/**
 * Each namespace's Chinese has exactly its English keys: a key missing on either side
 * fails tsc (the test checks it again at run time). The Chinese loads when the console first
 * shows Chinese: an English console never fetches it.
 */
const pairs: {
  [N in Namespace]: { en: Catalogue<Chinese<N>>; zh: () => Promise<Catalogue<Catalogues[N]['en']>> };
} = catalogues;

/** All namespaces, `common` (the default) first, so that typed `t` accepts every `namespace:key`. */
export const namespaces = [
  'common',
  ...(Object.keys(pairs) as Namespace[]).filter((ns) => ns !== 'common'),
] as const;

/** English defines every key; Chinese must have the same keys (checked by tsc and by a test). */
export const en = Object.fromEntries(namespaces.map((ns) => [ns, catalogues[ns].en])) as {
  [N in Namespace]: Catalogues[N]['en'];
};

export type ChineseCatalogue = Catalogue<typeof en>;

let chinese: Promise<ChineseCatalogue> | undefined;

/** The Chinese catalogue, every namespace, fetched once. */
export function loadChinese(): Promise<ChineseCatalogue> {
  chinese ??= Promise.all(namespaces.map(async (ns) => [ns, await pairs[ns].zh()] as const)).then(
    (entries) => Object.fromEntries(entries) as ChineseCatalogue,
  );
  return chinese;
}

export type MenuTitleKey = keyof typeof en.menu;

export function isMenuTitleKey(value: string): value is MenuTitleKey {
  return Object.hasOwn(en.menu, value);
}
