import { defineMessages } from './define.js';

/**
 * The HSM root of trust (settings › HSM). `hsm.*` answer the calls (4xxx); `system.hsm*` are
 * the reasons of 5030 "sealed" while the HSM holding the root key cannot be used.
 */
export const hsmMessages = defineMessages({
  en: {
    'hsm.library': 'library: the PKCS#11 library {library} cannot be loaded',
    'hsm.libraryNotAllowed':
      'library: {library} is not in a directory this server allows PKCS#11 libraries from ({dirs}); the operator names them with KSP_PKCS11_DIRS',
    'hsm.tokenAbsent': 'No HSM token {token} is reachable through the PKCS#11 library',
    'hsm.pinRefused': 'pin: the HSM token {token} refused the PIN ({detail})',
    'hsm.keyMissing': 'The HSM token holds no root-of-trust key labelled {key}',
    'hsm.unwrapFailed': 'The HSM key does not unwrap the root key (another token or key)',
    'hsm.failed': 'The HSM failed: {detail}',
    'hsm.pinFile': 'The local key that seals the HSM PIN ({file}) is missing or does not match',
    'hsm.notBound': 'The HSM is not bound: the root key is sealed by the seal file',
    'hsm.notConfigured': 'No HSM is configured: bind one first',
    'hsm.fieldRequired': '{field}: is required',
    'hsm.badPem': '{field}: not a valid PEM {kind}',
    'hsm.keyMismatch': 'client_private_key: it does not belong to client_certificate',
    'hsm.rewrapMismatch': 'The new wrapping does not give back the root key: nothing was changed',
    'system.hsmLibrary':
      'The system is sealed: the HSM library {library} cannot be loaded. Install it or correct the path; the keys are intact',
    'system.hsmLibraryNotAllowed':
      'The system is sealed: the stored HSM library {library} is not in a directory this server allows PKCS#11 libraries from ({dirs}). Add its directory to KSP_PKCS11_DIRS, or correct the path; the keys are intact',
    'system.hsmTokenAbsent':
      'The system is sealed: the HSM token {token} is not reachable. Plug it in or restore it; the server unseals by itself',
    'system.hsmPinRefused':
      'The system is sealed: the HSM token {token} refused the stored PIN ({detail}). Restore the PIN on the token, or give the server the new one on a node with `ksp hsm-pin`; the keys are intact',
    'system.hsmKeyMissing': 'The system is sealed: the HSM token holds no root-of-trust key labelled {key}',
    'system.hsmUnwrapFailed': 'The system is sealed: the HSM key does not unwrap the root key',
    'system.hsmFailed': 'The system is sealed: the HSM failed ({detail}); the server retries by itself',
    'system.hsmPinFile':
      'The system is sealed: the local key that seals the HSM PIN ({file}) is missing or does not match. Copy it from the node that bound the HSM, or give the PIN again with `ksp hsm-pin`',
  },
  zh: {
    'hsm.library': 'library：无法加载 PKCS#11 库 {library}',
    'hsm.libraryNotAllowed':
      'library：{library} 不在本服务器允许加载 PKCS#11 库的目录中（{dirs}）；由运维人员通过 KSP_PKCS11_DIRS 指定',
    'hsm.tokenAbsent': '通过该 PKCS#11 库找不到 HSM 令牌 {token}',
    'hsm.pinRefused': 'pin：HSM 令牌 {token} 拒绝了该 PIN（{detail}）',
    'hsm.keyMissing': 'HSM 令牌上没有标签为 {key} 的信任根密钥',
    'hsm.unwrapFailed': 'HSM 密钥无法解开根密钥（令牌或密钥不同）',
    'hsm.failed': 'HSM 操作失败：{detail}',
    'hsm.pinFile': '封存 HSM PIN 的本地密钥（{file}）缺失或不匹配',
    'hsm.notBound': 'HSM 未绑定：根密钥由封存文件保护',
    'hsm.notConfigured': '尚未配置 HSM：请先绑定',
    'hsm.fieldRequired': '{field}：必填',
    'hsm.badPem': '{field}：不是有效的 PEM {kind}',
    'hsm.keyMismatch': 'client_private_key：与 client_certificate 不匹配',
    'hsm.rewrapMismatch': '新的封装无法还原根密钥：未做任何更改',
    'system.hsmLibrary': '系统处于封存状态：无法加载 HSM 库 {library}。请安装或更正路径；密钥完好无损',
    'system.hsmLibraryNotAllowed':
      '系统处于封存状态：保存的 HSM 库 {library} 不在本服务器允许加载 PKCS#11 库的目录中（{dirs}）。请将其目录加入 KSP_PKCS11_DIRS 或更正路径；密钥完好无损',
    'system.hsmTokenAbsent':
      '系统处于封存状态：无法访问 HSM 令牌 {token}。插回或恢复令牌后，服务器会自动解封',
    'system.hsmPinRefused':
      '系统处于封存状态：HSM 令牌 {token} 拒绝了保存的 PIN（{detail}）。请在令牌上恢复该 PIN，或在节点上用 `ksp hsm-pin` 提供新 PIN；密钥完好无损',
    'system.hsmKeyMissing': '系统处于封存状态：HSM 令牌上没有标签为 {key} 的信任根密钥',
    'system.hsmUnwrapFailed': '系统处于封存状态：HSM 密钥无法解开根密钥',
    'system.hsmFailed': '系统处于封存状态：HSM 操作失败（{detail}）；服务器会自动重试',
    'system.hsmPinFile':
      '系统处于封存状态：封存 HSM PIN 的本地密钥（{file}）缺失或不匹配。请从绑定 HSM 的节点复制该文件，或用 `ksp hsm-pin` 重新提供 PIN',
  },
});
