// A signed-in page's namespace: both languages load with it, never before the login form.
export const tdeDatabase = {
  en: () => import('../en/tde-database').then((m) => m.tdeDatabase),
  zh: () => import('../zh/tde-database').then((m) => m.tdeDatabase),
};
