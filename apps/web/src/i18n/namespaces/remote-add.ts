// The public /remote-add page's namespace: its route loads both languages with the page.
export const remoteAdd = {
  en: () => import('../en/remote-add').then((m) => m.remoteAdd),
  zh: () => import('../zh/remote-add').then((m) => m.remoteAdd),
};
