import i18next, { type BackendModule } from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import type { Locale } from 'antd/es/locale';
import enUS from 'antd/locale/en_US';
import dayjs from 'dayjs';
import { en, loadChinese, namespaces, type ChineseCatalogue, type Namespace } from './resources';
import { htmlLang, initialLanguage, storeLanguage, type Language } from './language';

let antdChinese: Locale | undefined;
let chineseLocales: Promise<ChineseCatalogue> | undefined;

/** Chinese is fetched the first time it is shown: the catalogue with antd's and dayjs's locales. */
function loadChineseLocales(): Promise<ChineseCatalogue> {
  chineseLocales ??= Promise.all([
    loadChinese(),
    import('antd/locale/zh_CN'),
    import('dayjs/locale/zh-cn'),
  ]).then(([catalogue, antd]) => {
    antdChinese = antd.default;
    return catalogue;
  });
  return chineseLocales;
}

/** Hands i18next the Chinese namespaces as they load (English is bundled). */
const chineseBackend: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, namespace, callback) {
    const ns = namespace as Namespace;
    if (language !== 'zh') return callback(null, en[ns]);
    loadChineseLocales().then(
      (catalogue) => callback(null, catalogue[ns]),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  },
};

/** The console's i18next instance: en and zh catalogues, one namespace per area. */
export const i18n = i18next.createInstance();

/** Settles once the first language's catalogue is there (at once for English). */
export const i18nReady = i18n
  .use(initReactI18next)
  .use(chineseBackend)
  .init({
    resources: { en },
    partialBundledLanguages: true,
    lng: initialLanguage(),
    fallbackLng: 'en',
    supportedLngs: ['en', 'zh'],
    ns: [...namespaces],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });

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
