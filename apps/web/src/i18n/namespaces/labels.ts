// Signed-in pages only: both languages load with them.
export const labels = {
  en: () => import('../en/labels').then((m) => m.labels),
  zh: () => import('../zh/labels').then((m) => m.labels),
};
