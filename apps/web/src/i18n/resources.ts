import type { Catalogue } from './catalogue';
import * as catalogues from './namespaces';
import { menu as menuTitles } from './en/menu';

type Catalogues = typeof catalogues;
export type Namespace = keyof Catalogues;
type Loaded<T> = T extends () => Promise<infer C> ? C : T;
type English<N extends Namespace> = Loaded<Catalogues[N]['en']>;
type Chinese<N extends Namespace> = Loaded<Catalogues[N]['zh']>;

/**
 * Each namespace's Chinese has exactly its English keys: a key missing on either side fails
 * tsc (the test checks it again at run time). Chinese loads when the console first shows it;
 * the English of the signed-in pages' namespaces (a loader instead of the catalogue) loads
 * with those pages. Neither is fetched before the login form.
 */
const pairs: {
  [N in Namespace]: {
    en: Catalogue<Chinese<N>> | (() => Promise<Catalogue<Chinese<N>>>);
    zh: () => Promise<Catalogue<English<N>>>;
  };
} = catalogues;

/** All namespaces, `common` (the default) first, so that typed `t` accepts every `namespace:key`. */
export const namespaces = [
  'common',
  ...(Object.keys(pairs) as Namespace[]).filter((ns) => ns !== 'common'),
] as const;

/** The English catalogue, every namespace: it defines the keys (and the types of `t`). */
export type EnglishCatalogue = { [N in Namespace]: English<N> };

/** The namespaces whose English is in the bundle, and those loaded with the signed-in pages. */
export const bundledNamespaces = namespaces.filter((ns) => typeof catalogues[ns].en !== 'function');
export const loadedNamespaces = namespaces.filter((ns) => typeof catalogues[ns].en === 'function');

/** The English in the bundle. */
export const bundledEnglish: Partial<EnglishCatalogue> = Object.fromEntries(
  bundledNamespaces.map((ns) => [ns, catalogues[ns].en]),
);

/** One namespace of one language, loaded if it is not in the bundle. */
export async function loadNamespace<N extends Namespace>(language: 'en' | 'zh', ns: N): Promise<English<N>> {
  const entry: unknown = pairs[ns][language];
  return (typeof entry === 'function' ? await (entry as () => Promise<unknown>)() : entry) as English<N>;
}

/** A whole catalogue (the tests read every key of both languages). */
export async function loadCatalogue(language: 'en' | 'zh'): Promise<EnglishCatalogue> {
  const entries = await Promise.all(namespaces.map(async (ns) => [ns, await loadNamespace(language, ns)]));
  return Object.fromEntries(entries) as EnglishCatalogue;
}

export type MenuTitleKey = keyof typeof menuTitles;

export function isMenuTitleKey(value: string): value is MenuTitleKey {
  return Object.hasOwn(menuTitles, value);
}
