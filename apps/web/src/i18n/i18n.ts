import i18next from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import { resources, namespaces } from './resources';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { htmlLang, initialLanguage, storeLanguage, type Language } from './language';

/** The console's i18next instance: en and zh catalogues, one namespace per area. */
export const i18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  resources,
  lng: initialLanguage(),
  fallbackLng: 'en',
  supportedLngs: ['en', 'zh'],
  ns: [...namespaces],
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});

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
