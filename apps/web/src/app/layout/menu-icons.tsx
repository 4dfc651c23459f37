import type { ReactNode } from 'react';
import {
  ApartmentOutlined,
  ApiOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BankOutlined,
  CloudServerOutlined,
  ClusterOutlined,
  ControlOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  DeploymentUnitOutlined,
  DesktopOutlined,
  ExperimentOutlined,
  EyeInvisibleOutlined,
  FileProtectOutlined,
  FileTextOutlined,
  GlobalOutlined,
  IdcardOutlined,
  KeyOutlined,
  LockOutlined,
  SafetyCertificateOutlined,
  SafetyOutlined,
  ScheduleOutlined,
  SendOutlined,
  SettingOutlined,
  SolutionOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';

/**
 * meta.icon names of the server's menu → icons, one icon per entry so that entries stay
 * apart when the menu is collapsed to icons; an unknown name shows no icon.
 */
const icons: Record<string, ReactNode> = {
  dashboard: <DashboardOutlined />,
  product: <AppstoreOutlined />,
  access: <TeamOutlined />,
  user: <UserOutlined />,
  role: <SolutionOutlined />,
  token: <FileProtectOutlined />,
  key: <KeyOutlined />,
  kms: <ClusterOutlined />,
  domain: <ApartmentOutlined />,
  ldap: <ApiOutlined />,
  cert: <SafetyCertificateOutlined />,
  certExternal: <GlobalOutlined />,
  certLocal: <SafetyOutlined />,
  log: <FileTextOutlined />,
  audit: <AuditOutlined />,
  setting: <SettingOutlined />,
  config: <ControlOutlined />,
  quantum: <ExperimentOutlined />,
  license: <IdcardOutlined />,
  scheduler: <ScheduleOutlined />,
  syslog: <SendOutlined />,
  backup: <DatabaseOutlined />,
  backupKey: <KeyOutlined />,
  hsm: <CloudServerOutlined />,
  lock: <LockOutlined />,
  credential: <BankOutlined />,
  cred: <EyeInvisibleOutlined />,
  server: <ClusterOutlined />,
  kadp: <DeploymentUnitOutlined />,
  kadpClients: <DesktopOutlined />,
};

export function menuIcon(name: string | undefined): ReactNode {
  return name && Object.hasOwn(icons, name) ? icons[name] : undefined;
}
