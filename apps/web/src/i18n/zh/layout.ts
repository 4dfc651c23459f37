import type { Catalogue } from '../catalogue';
import type { layout as en } from '../en/layout';

export const layout: Catalogue<typeof en> = {
  area: {
    console: '密钥管理系统',
    cte: '透明加密',
    kadp: 'KADP',
    kms: 'KMS',
    rdm: '防勒索',
    credential: '凭据管理',
  },
  topbar: {
    toggleMenu: '展开/收起菜单',
    fullscreen: '全屏',
    fullscreenUnsupported: '您的浏览器无法使用全屏功能',
    version: '版本',
    domain: '域',
    profile: '个人中心',
    logout: '退出登录',
  },
  tags: {
    noName: '未命名',
    refresh: '刷新',
    close: '关闭',
    closeOthers: '关闭其他',
    closeAll: '关闭所有',
  },
  settings: {
    open: '页面设置',
    title: '页面风格设置',
    theme: '主题色',
    showSettings: '显示设置按钮',
    tagsView: '开启标签页',
    fixedHeader: '固定顶栏',
    sidebarLogo: '侧边栏标志',
    size: '组件尺寸',
    small: '小',
    medium: '默认',
    large: '大',
    reset: '恢复默认',
  },
};
