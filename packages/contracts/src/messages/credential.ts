import { defineMessages } from './define.js';

/** Credentials (SMS sub-console). Messages never carry a value. */
export const credentialMessages = defineMessages({
  en: {
    'credential.notFound': 'Credential {id} not found',
    'credential.nameTaken': "Credential '{name}' already exists",
    'credential.versionNotFound': 'Credential {name} has no version {version}',
    'credential.changed': 'Credential {name} was given a new version meanwhile: try again',
    'credential.unreadable':
      'Credential {name} version {version} cannot be opened: its sealed value was altered or moved (see the audit log)',
    'credential.badSshKey': 'value: not a PEM private key that can be read ({reason})',
    'credential.badCertificate': 'value: no readable PEM certificate ({reason})',
    'credential.badCertKey': 'value: no readable PEM private key after the certificate ({reason})',
    'credential.keyMismatch': 'value: the private key does not match the certificate',
    'credential.badKeyValue': 'value: must be a JSON object whose values are strings ({reason})',
    'credential.noClass': 'generate-password: choose at least one character class',
    'credential.lengthTooShort': 'length: {length} is too short for {classes} character classes',
    'credential.wrongPassword': 'password: incorrect password',
    'credential.directoryUser':
      'Directory users cannot reveal credentials here: their password is checked by the directory',
  },
  zh: {
    'credential.notFound': '凭据 {id} 不存在',
    'credential.nameTaken': '凭据“{name}”已存在',
    'credential.versionNotFound': '凭据 {name} 没有版本 {version}',
    'credential.changed': '凭据 {name} 刚刚被添加了新版本，请重试',
    'credential.unreadable': '凭据 {name} 版本 {version} 无法打开：其加密值已被篡改或移动（见审计日志）',
    'credential.badSshKey': 'value：不是可读取的 PEM 私钥（{reason}）',
    'credential.badCertificate': 'value：没有可读取的 PEM 证书（{reason}）',
    'credential.badCertKey': 'value：证书之后没有可读取的 PEM 私钥（{reason}）',
    'credential.keyMismatch': 'value：私钥与证书不匹配',
    'credential.badKeyValue': 'value：必须是值均为字符串的 JSON 对象（{reason}）',
    'credential.noClass': 'generate-password：至少选择一种字符类别',
    'credential.lengthTooShort': 'length：长度 {length} 不足以包含 {classes} 种字符类别',
    'credential.wrongPassword': 'password：密码错误',
    'credential.directoryUser': '目录用户不能在此查看凭据：其密码由目录服务校验',
  },
});
