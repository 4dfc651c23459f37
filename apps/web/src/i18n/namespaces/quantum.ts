// A signed-in page's namespace: both languages load with it, never before the login form.
export const quantum = {
  en: () => import('../en/quantum').then((m) => m.quantum),
  zh: () => import('../zh/quantum').then((m) => m.quantum),
};
