import { defineMessages } from './define.js';

/** TDE / RDM policies, policy elements and client profiles (modules/tde-policy). */
export const tdePolicyMessages = defineMessages({
  en: {
    'tdePolicy.elementNotFound': 'Policy element {id} not found',
    'tdePolicy.elementNameTaken': "A {kind} set named '{name}' already exists",
    'tdePolicy.elementInUse': 'The {kind} set {name} is used by {users}: remove it from them first',
    'tdePolicy.entriesOfKind': '{field}: a {kind} set has no such entries',
    'tdePolicy.pathInGuardPoint':
      '{field}: must start with / (a path within the guard point, / for the guard point itself), without . or .. segments',
    'tdePolicy.pathAbsolute':
      '{field}: must be an absolute path (/usr/bin or C:\\Tools), without . or .. segments',
    'tdePolicy.fileName': '{field}: must be a file name or pattern, without / or \\',
    'tdePolicy.userEmpty': '{field}: give at least one of uname, uid, gname, gid',
    'tdePolicy.processEmpty': '{field}: give a directory, a file or both',
    'tdePolicy.hashHex': '{field}: must be a SHA-256 hash, 64 hexadecimal characters',
    'tdePolicy.setNotFound': '{field}: no {kind} set {id} in this domain',
    'tdePolicy.policyNotFound': 'Policy {id} not found',
    'tdePolicy.policyNameTaken': "A {type} policy named '{name}' already exists",
    'tdePolicy.policyInUse': 'Policy {name} is used by {count} guard point(s): remove it from them first',
    'tdePolicy.typeLocked': 'The type of policy {name} is {type}: it cannot change after creation',
    'tdePolicy.restricted':
      'Policy {name} is restricted while in use: {count} guard point(s) use it; clear "restrict update" only when no guard point uses it',
    'tdePolicy.rdmRequired': 'rdm: an RDM policy needs its mode, trusted processes and threshold',
    'tdePolicy.rdmOnly': 'rdm: only RDM policies have RDM settings',
    'tdePolicy.rdmNoKeyRules': 'key_rules: RDM policies encrypt nothing and have no key rules',
    'tdePolicy.rdmNoApplyKey': '{field}: applykey is not an effect of RDM policies',
    'tdePolicy.effectsConflict': '{field}: a rule cannot both permit and deny',
    'tdePolicy.keyNotFound': '{field}: key {id} not found in this domain',
    'tdePolicy.keyNotTde':
      '{field}: key {name} cannot encrypt TDE files: it must be AES-256 with TDE attributes, non-versioned, mode CBC or CBC_CS1, and not destroyed',
    'tdePolicy.profileNotFound': 'Client profile {name} not found',
    'tdePolicy.profileNameTaken': "Client profile '{name}' already exists",
    'tdePolicy.profileDefault': 'The default client profile {name} cannot be deleted',
    'tdePolicy.profileInUse': 'Client profile {name} is used by {count} client(s) or group(s)',
    'tdePolicy.profileIntervals': 'upload_settings.max_interval_s: must be at least min_interval_s ({min})',
  },
  zh: {
    'tdePolicy.elementNotFound': '策略元素 {id} 不存在',
    'tdePolicy.elementNameTaken': '名为“{name}”的 {kind} 集已存在',
    'tdePolicy.elementInUse': '{kind} 集 {name} 正被 {users} 使用：请先从中移除',
    'tdePolicy.entriesOfKind': '{field}：{kind} 集没有此类条目',
    'tdePolicy.pathInGuardPoint':
      '{field}：必须以 / 开头（保护点内的路径，/ 表示保护点本身），且不含 . 或 .. 段',
    'tdePolicy.pathAbsolute': '{field}：必须是绝对路径（如 /usr/bin 或 C:\\Tools），且不含 . 或 .. 段',
    'tdePolicy.fileName': '{field}：必须是文件名或通配模式，不含 / 或 \\',
    'tdePolicy.userEmpty': '{field}：至少填写 uname、uid、gname、gid 之一',
    'tdePolicy.processEmpty': '{field}：请填写目录、文件或两者',
    'tdePolicy.hashHex': '{field}：必须是 SHA-256 哈希，64 个十六进制字符',
    'tdePolicy.setNotFound': '{field}：本域中不存在 {kind} 集 {id}',
    'tdePolicy.policyNotFound': '策略 {id} 不存在',
    'tdePolicy.policyNameTaken': '名为“{name}”的 {type} 策略已存在',
    'tdePolicy.policyInUse': '策略 {name} 正被 {count} 个保护点使用：请先从中移除',
    'tdePolicy.typeLocked': '策略 {name} 的类型为 {type}：创建后不能更改',
    'tdePolicy.restricted':
      '策略 {name} 在使用中禁止修改：{count} 个保护点正在使用；仅在无保护点使用时才能取消“限制更新”',
    'tdePolicy.rdmRequired': 'rdm：RDM 策略需要模式、可信进程和阈值',
    'tdePolicy.rdmOnly': 'rdm：只有 RDM 策略才有 RDM 设置',
    'tdePolicy.rdmNoKeyRules': 'key_rules：RDM 策略不加密，没有密钥规则',
    'tdePolicy.rdmNoApplyKey': '{field}：applykey 不是 RDM 策略的效果',
    'tdePolicy.effectsConflict': '{field}：同一规则不能既允许又拒绝',
    'tdePolicy.keyNotFound': '{field}：本域中不存在密钥 {id}',
    'tdePolicy.keyNotTde':
      '{field}：密钥 {name} 不能用于 TDE 加密：必须是带 TDE 属性的 AES-256 密钥，非版本化，模式为 CBC 或 CBC_CS1，且未销毁',
    'tdePolicy.profileNotFound': '客户端配置文件 {name} 不存在',
    'tdePolicy.profileNameTaken': '客户端配置文件“{name}”已存在',
    'tdePolicy.profileDefault': '默认客户端配置文件 {name} 不能删除',
    'tdePolicy.profileInUse': '客户端配置文件 {name} 正被 {count} 个客户端或客户端组使用',
    'tdePolicy.profileIntervals': 'upload_settings.max_interval_s：不能小于 min_interval_s（{min}）',
  },
});
