// A signed-in page's namespace: both languages load with it, never before the login form.
export const log = {
  en: () => import('../en/log').then((m) => m.log),
  zh: () => import('../zh/log').then((m) => m.log),
};
