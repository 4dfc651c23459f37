export type Language = 'en' | 'zh';

export const languages: readonly Language[] = ['en', 'zh'];

/** One area's messages: English defines the keys, Chinese must give the same ones. */
export interface Messages<K extends string> {
  en: Record<K, string>;
  zh: Record<K, string>;
}

export function defineMessages<K extends string>(messages: {
  en: Record<K, string>;
  zh: Record<NoInfer<K>, string>;
}): Messages<K> {
  return messages;
}

/** The keys of one area's messages, or of a union of areas. */
export type KeysOf<M> = M extends Messages<infer K> ? K : never;
