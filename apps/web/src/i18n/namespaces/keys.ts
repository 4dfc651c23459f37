// Signed-in pages only: both languages load with them.
export const keys = {
  en: () => import('../en/keys').then((m) => m.keys),
  zh: () => import('../zh/keys').then((m) => m.keys),
};
