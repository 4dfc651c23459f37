import i18next, { type BackendModule } from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import type { Locale } from 'antd/es/locale';
import enUS from 'antd/locale/en_US';
import dayjs from 'dayjs';
import {
  bundledEnglish,
  bundledNamespaces,
  loadedNamespaces,
  loadNamespace,
  namespaces,
  type Namespace,
} from './resources';
import { htmlLang, initialLanguage, storeLanguage, type Language } from './language';

let antdChinese: Locale | undefined;
let chineseLocales: Promise<void> | undefined;

/** antd's and dayjs's Chinese, fetched with the first Chinese namespace. */
function loadChineseLocales(): Promise<void> {
  chineseLocales ??= Promise.all([import('antd/locale/zh_CN'), import('dayjs/locale/zh-cn')]).then(
    ([antd]) => {
      antdChinese = antd.default;
    },
  );
  return chineseLocales;
}

/**
 * Hands i18next what is not in the bundle: Chinese the first time the console shows it, and
 * the English of the signed-in pages' namespaces when those pages load.
 */
const lazyCatalogues: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, namespace, callback) {
    const lang = language === 'zh' ? 'zh' : 'en';
    Promise.all([
      loadNamespace(lang, namespace as Namespace),
      lang === 'zh' ? loadChineseLocales() : null,
    ]).then(
      ([catalogue]) => callback(null, catalogue),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  },
};

/** The console's i18next instance: en and zh catalogues, one namespace per area. */
export const i18n = i18next.createInstance();

/** Settles once the first language's bundled namespaces are there (at once for English). */
export const i18nReady = i18n
  .use(initReactI18next)
  .use(lazyCatalogues)
  .init({
    resources: { en: bundledEnglish },
    partialBundledLanguages: true,
    lng: initialLanguage(),
    fallbackLng: 'en',
    supportedLngs: ['en', 'zh'],
    ns: [...bundledNamespaces],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
    // A namespace not loaded yet does not hold up a page: the namespaces not in the bundle load
    // with the pages that use them (loadPageNamespaces), in the background elsewhere.
    react: { useSuspense: false },
  });

/** The namespaces not in the bundle (signed-in pages, the Ukey step), in the current language. */
export function loadPageNamespaces(): Promise<void> {
  return i18n.loadNamespaces([...loadedNamespaces]);
}

/** antd's locale for the language (Chinese once loaded, which it is before Chinese shows). */
export function antdLocale(language: Language): Locale {
  return language === 'zh' && antdChinese ? antdChinese : enUS;
}

/** Switches the UI language: cookie, i18next, dayjs and the page's lang attribute follow. */
export async function changeLanguage(language: Language): Promise<void> {
  storeLanguage(language);
  await i18n.changeLanguage(language);
}

function followLanguage(language: string): void {
  const lang: Language = language === 'zh' ? 'zh' : 'en';
  dayjs.locale(lang === 'zh' ? 'zh-cn' : 'en');
  document.documentElement.lang = htmlLang(lang);
}

followLanguage(i18n.language);
i18n.on('languageChanged', followLanguage);

export function currentLanguage(): Language {
  return i18n.language === 'zh' ? 'zh' : 'en';
}

/** `t` taking any `namespace:key` of the catalogues, re-rendering on a language change. */
export function useT() {
  return useTranslation(namespaces).t;
}
