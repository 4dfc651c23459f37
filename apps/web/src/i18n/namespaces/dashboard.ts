// Signed-in pages only: both languages load with them.
export const dashboard = {
  en: () => import('../en/dashboard').then((m) => m.dashboard),
  zh: () => import('../zh/dashboard').then((m) => m.dashboard),
};
