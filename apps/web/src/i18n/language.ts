import Cookies from 'js-cookie';
import { languages, type Language } from '@ksp/contracts';

export type { Language };
export { languages };

/** The cookie the server also reads to localize `msg` (docs/api.md#conventions). */
export const LANGUAGE_COOKIE = 'language';

function isLanguage(value: string | undefined): value is Language {
  return value !== undefined && (languages as readonly string[]).includes(value);
}

/** Cookie first, then the browser language (zh* → zh), English by default. */
export function detectLanguage(cookie: string | undefined, browserLanguages: readonly string[]): Language {
  if (isLanguage(cookie)) return cookie;
  for (const tag of browserLanguages) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export function initialLanguage(): Language {
  const browser = navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  return detectLanguage(Cookies.get(LANGUAGE_COOKIE), browser);
}

export function storeLanguage(language: Language): void {
  Cookies.set(LANGUAGE_COOKIE, language, { expires: 365, path: '/', sameSite: 'Lax' });
}

/** The value of the Accept-Language header the console sends. */
export function acceptLanguage(language: Language): string {
  return language === 'zh' ? 'zh-CN,zh;q=0.9' : 'en';
}

export function htmlLang(language: Language): string {
  return language === 'zh' ? 'zh-CN' : 'en';
}
