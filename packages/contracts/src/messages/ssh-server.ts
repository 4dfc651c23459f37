import { defineMessages } from './define.js';

/** Servers of the SMS sub-console. Messages never carry a password or a key. */
export const sshServerMessages = defineMessages({
  en: {
    'server.notFound': 'Server {id} not found',
    'server.sessionNotFound': 'Terminal session {id} not found',
    'server.nameTaken': "Server '{name}' already exists",
    'server.credentialNotFound': 'credential_id: credential {id} not found in this domain',
    'server.credentialType':
      'credential_id: auth type {auth} needs a credential of type {type}, not {actual}',
    'server.credentialInUse':
      'credential_id: credential {credential} is already the credential of server {server}',
    'server.noCredential': 'Server {name} has no credential: its credential was deleted, link another one',
    'server.notPinned': 'Server {name} has no confirmed host key: fetch and confirm its fingerprint first',
    'server.fingerprintMismatch':
      'The host presents the key {actual}, not the confirmed {expected}: nothing was pinned',
    'server.hostKeyChanged':
      'HOST KEY CHANGED on {name} ({host}): it presents {actual} but {expected} is pinned. Someone may be intercepting the connection; the connection was refused. If the server was reinstalled, confirm its new fingerprint.',
    'server.unreachable': 'Cannot reach {host}:{port} ({reason})',
    'server.noSshServer': 'No SSH server answered at {host}:{port}',
    'server.targetNotAllowed':
      'host: {host} is not in the networks this server may connect to (KSP_SSH_ALLOWED_NETWORKS, set by the operator)',
    'server.probeLimit': 'At most {limit} host key fetches a minute: try again in {seconds} s',
    'server.authRefused': 'The server refused the login of {account} with credential {credential}',
    'server.commandFailed': 'The command {command} failed on the server (exit {status}): {output}',
    'server.verifyFailed':
      'The new password was set but a fresh login with it was refused: the old credential version stays current ({reason})',
    'server.restoreFailed':
      'The rotation failed after the server took the new password ({reason}), and putting the old one back failed: the new password was kept as credential version {version}',
    'server.rotationNeedsPassword': 'Rotation changes a password: server {name} logs in with a private key',
    'server.rotationBusy': 'A rotation of server {name} is already running',
    'server.noClass': 'rotation: choose at least one character class',
    'server.terminalNotAllowed':
      'You may not open a terminal on server {name}: ask for your user or one of your roles to be added to its terminal users or roles',
    'server.terminalTicket': 'The terminal ticket is unknown, used or expired: open the terminal again',
    'server.terminalLimit':
      'You already have {limit} terminal sessions open: close one before opening another',
    'server.terminalSessionEnded':
      'The session this terminal ticket was issued to has ended (signed out, domain switched or password changed): sign in and open the terminal again',
  },
  zh: {
    'server.notFound': '服务器 {id} 不存在',
    'server.sessionNotFound': '终端会话 {id} 不存在',
    'server.nameTaken': '服务器“{name}”已存在',
    'server.credentialNotFound': 'credential_id：本域中不存在凭据 {id}',
    'server.credentialType': 'credential_id：认证方式 {auth} 需要类型为 {type} 的凭据，而不是 {actual}',
    'server.credentialInUse': 'credential_id：凭据 {credential} 已是服务器 {server} 的凭据',
    'server.noCredential': '服务器 {name} 没有凭据：其凭据已被删除，请关联另一个',
    'server.notPinned': '服务器 {name} 没有已确认的主机密钥：请先获取并确认其指纹',
    'server.fingerprintMismatch': '主机提供的密钥为 {actual}，而不是已确认的 {expected}：未固定任何密钥',
    'server.hostKeyChanged':
      '{name}（{host}）的主机密钥已变更：它提供 {actual}，但已固定的是 {expected}。连接可能被拦截，已拒绝连接。如果服务器已重装，请确认其新指纹。',
    'server.unreachable': '无法连接 {host}:{port}（{reason}）',
    'server.noSshServer': '{host}:{port} 上没有 SSH 服务器应答',
    'server.targetNotAllowed':
      'host：{host} 不在本服务器允许连接的网络中（KSP_SSH_ALLOWED_NETWORKS，由运维人员设置）',
    'server.probeLimit': '每分钟最多获取 {limit} 次主机密钥：请在 {seconds} 秒后重试',
    'server.authRefused': '服务器拒绝了账户 {account} 使用凭据 {credential} 登录',
    'server.commandFailed': '命令 {command} 在服务器上执行失败（退出码 {status}）：{output}',
    'server.verifyFailed': '新密码已设置，但使用新密码重新登录被拒绝：凭据仍保留旧版本为当前版本（{reason}）',
    'server.restoreFailed':
      '服务器已接受新密码后轮换失败（{reason}），且恢复旧密码也失败：新密码已保存为凭据版本 {version}',
    'server.rotationNeedsPassword': '轮换修改的是密码：服务器 {name} 使用私钥登录',
    'server.rotationBusy': '服务器 {name} 的轮换正在进行',
    'server.noClass': 'rotation：至少选择一种字符类别',
    'server.terminalNotAllowed': '您不能在服务器 {name} 上打开终端：请将您的用户或角色加入其终端用户或角色',
    'server.terminalTicket': '终端票据不存在、已使用或已过期：请重新打开终端',
    'server.terminalLimit': '您已打开 {limit} 个终端会话：请先关闭一个再打开新的',
    'server.terminalSessionEnded':
      '签发此终端票据的会话已结束（已退出登录、切换域或修改密码）：请重新登录后再打开终端',
  },
});
