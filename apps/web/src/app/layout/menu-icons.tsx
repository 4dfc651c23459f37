import type { ReactNode } from 'react';
import {
  AppstoreOutlined,
  AuditOutlined,
  CloudServerOutlined,
  ControlOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  FileProtectOutlined,
  FileTextOutlined,
  KeyOutlined,
  LockOutlined,
  SafetyCertificateOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';

/** meta.icon names of the server's menu → icons; an unknown name shows no icon. */
const icons: Record<string, ReactNode> = {
  dashboard: <DashboardOutlined />,
  product: <AppstoreOutlined />,
  access: <TeamOutlined />,
  user: <UserOutlined />,
  role: <TeamOutlined />,
  token: <FileProtectOutlined />,
  key: <KeyOutlined />,
  cert: <SafetyCertificateOutlined />,
  log: <FileTextOutlined />,
  audit: <AuditOutlined />,
  setting: <SettingOutlined />,
  config: <ControlOutlined />,
  backup: <DatabaseOutlined />,
  hsm: <CloudServerOutlined />,
  lock: <LockOutlined />,
};

export function menuIcon(name: string | undefined): ReactNode {
  return name && Object.hasOwn(icons, name) ? icons[name] : undefined;
}
