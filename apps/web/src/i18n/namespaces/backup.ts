// A signed-in page's namespace: both languages load with it, never before the login form.
export const backup = {
  en: () => import('../en/backup').then((m) => m.backup),
  zh: () => import('../zh/backup').then((m) => m.backup),
};
