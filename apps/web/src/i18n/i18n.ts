import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { resources, namespaces } from './resources';
import { initialLanguage } from './language';

/** The console's i18next instance: en and zh catalogues, one namespace per area. */
export const i18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  resources,
  lng: initialLanguage(),
  fallbackLng: 'en',
  supportedLngs: ['en', 'zh'],
  ns: namespaces,
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});
