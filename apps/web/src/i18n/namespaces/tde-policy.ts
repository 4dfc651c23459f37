// A signed-in page's namespace: both languages load with it, never before the login form.
export const tdePolicy = {
  en: () => import('../en/tde-policy').then((m) => m.tdePolicy),
  zh: () => import('../zh/tde-policy').then((m) => m.tdePolicy),
};
