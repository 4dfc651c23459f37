// Signed-in pages (and the login's Ukey step) only: both languages load with them.
export const access = {
  en: () => import('../en/access').then((m) => m.access),
  zh: () => import('../zh/access').then((m) => m.access),
};
