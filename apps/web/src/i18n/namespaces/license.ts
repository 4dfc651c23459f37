// A signed-in page's namespace: both languages load with it, never before the login form.
export const license = {
  en: () => import('../en/license').then((m) => m.license),
  zh: () => import('../zh/license').then((m) => m.license),
};
