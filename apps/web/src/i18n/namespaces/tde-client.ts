// A signed-in page's namespace: both languages load with it, never before the login form.
export const tdeClient = {
  en: () => import('../en/tde-client').then((m) => m.tdeClient),
  zh: () => import('../zh/tde-client').then((m) => m.tdeClient),
};
