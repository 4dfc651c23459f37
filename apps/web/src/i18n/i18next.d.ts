import type { EnglishCatalogue } from './resources';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: EnglishCatalogue;
    returnNull: false;
  }
}
