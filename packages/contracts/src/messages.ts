/**
 * Server messages in English and Chinese. Templates use `{name}` placeholders.
 * The server picks the caller's language; the console shows `msg` as it comes.
 */
export type Language = 'en' | 'zh';

export const languages: readonly Language[] = ['en', 'zh'];

const catalogue = {
  ok: { en: 'Success', zh: '成功' },
  'error.internal': {
    en: 'Unexpected server error (reference {errorId})',
    zh: '服务器内部错误（编号 {errorId}）',
  },
  'error.notFoundRoute': { en: 'No such API call: {method} {url}', zh: '不存在的接口：{method} {url}' },
  'error.bodyTooLarge': { en: 'Request body is too large', zh: '请求体过大' },
  'error.rateLimited': { en: 'Too many requests, retry later', zh: '请求过于频繁，请稍后再试' },
  'error.badJson': { en: 'body: is not valid JSON', zh: '请求体：不是有效的 JSON' },
  'error.unsupportedMedia': { en: 'Unsupported content type', zh: '不支持的内容类型' },
  'error.storageUnavailable': {
    en: 'Storage unavailable, retry in {seconds} seconds',
    zh: '存储暂不可用，请 {seconds} 秒后重试',
  },
  'error.multipartInvalid': {
    en: 'file: the multipart body is malformed ({rule})',
    zh: 'file：multipart 请求体格式错误（{rule}）',
  },
  'error.multipartRule.boundary': {
    en: 'the Content-Type header has no boundary',
    zh: 'Content-Type 头缺少 boundary',
  },
  'error.multipartRule.truncated': {
    en: 'a part is truncated or the closing boundary is missing',
    zh: '某个部分被截断或缺少结束 boundary',
  },
  'error.multipartRule.limits': {
    en: 'too many parts or fields',
    zh: '部分或字段过多',
  },
  'auth.tokenMissing': { en: 'Authentication required', zh: '需要登录' },
  'auth.tokenInvalid': { en: 'Invalid token', zh: '令牌无效' },
  'auth.sessionExpired': {
    en: 'Your identity information has expired. Please log in again!',
    zh: '您的身份信息已过期，请重新登录！',
  },
  'auth.badCredentials': { en: 'Incorrect username or password', zh: '用户名或密码错误' },
  'auth.accountLocked': {
    en: 'The account is locked after too many failed logins; try again after {until}',
    zh: '登录失败次数过多，账户已锁定，请于 {until} 之后再试',
  },
  'auth.ipNotAllowed': {
    en: 'Access from {ip} is not allowed for this account',
    zh: '此账户不允许从 {ip} 访问',
  },
  'auth.ukeyRequired': { en: 'Please log in with Ukey', zh: '请使用 Ukey 登录' },
  'auth.forbidden': {
    en: 'Permission denied: {permission} is required',
    zh: '权限不足：需要 {permission} 权限',
  },
  'auth.tokenKind': {
    en: "A token of kind '{kind}' cannot make this call; sign in to the console for it",
    zh: '“{kind}”类令牌不能调用此接口，请登录控制台操作',
  },
  'auth.systemScope': {
    en: "This is a system setting: only administrators signed in to the root domain may change it (you are in '{domain}')",
    zh: '这是系统级设置，只有登录到根域的管理员可以操作（您当前在域“{domain}”）',
  },
  'user.outOfReach': {
    en: "User '{name}' also belongs to a domain you do not administer; only a system administrator may change this user",
    zh: '用户“{name}”还属于您未管理的域，只有系统管理员可以修改该用户',
  },
  'domain.outOfReach': {
    en: "You may only manage members of your current domain ('{domain}')",
    zh: '您只能管理当前域（“{domain}”）的成员',
  },
  'role.outOfReach': {
    en: "Role '{name}' is held by users of a domain you do not administer; only a system administrator may change it",
    zh: '角色“{name}”被您未管理的域中的用户持有，只有系统管理员可以修改',
  },
  'user.appRoleTooWide': {
    en: "The role '{name}' grants permissions the user does not hold: {permissions}",
    zh: '角色“{name}”包含该用户没有的权限：{permissions}',
  },
  'auth.domainNotMember': { en: "You are not a member of domain '{domain}'", zh: '您不是域“{domain}”的成员' },
  'auth.passwordChangeRequired': {
    en: 'You must change your password before going on',
    zh: '继续操作前必须修改密码',
  },
  'system.notInitialized': {
    en: 'The system is not initialized. Complete the initialization first',
    zh: '系统尚未初始化，请先完成初始化',
  },
  'system.notActivated': {
    en: 'The system is not activated. Create the first administrator first',
    zh: '系统尚未激活，请先创建首个管理员',
  },
  'system.sealed': {
    en: 'The system is sealed: the seal file {file} is missing or does not match the database',
    zh: '系统处于封存状态：封存文件 {file} 缺失或与数据库不匹配',
  },
  'system.setupCodeRequired': {
    en: 'setup_code: the one-time setup code is missing or wrong; it is printed on the server console and written to the file setup-code in its data directory',
    zh: 'setup_code：一次性设置码缺失或错误；它已打印在服务器控制台，并写入数据目录中的 setup-code 文件',
  },
  'system.alreadyInitialized': { en: 'The system is already initialized', zh: '系统已经初始化' },
  'system.alreadyActivated': { en: 'The system is already activated', zh: '系统已经激活' },
  'system.componentsPending': {
    en: 'Only {done} of {total} key components have been generated',
    zh: '已生成 {done}/{total} 个密钥分量，尚未全部生成',
  },
  'system.componentsDone': {
    en: 'All {total} key components have been generated; finish the initialization',
    zh: '{total} 个密钥分量已全部生成，请完成初始化',
  },
  'system.noInitInProgress': {
    en: 'No initialization is in progress: generate the key components first',
    zh: '没有进行中的初始化：请先生成密钥分量',
  },
  'password.rules': { en: 'Password does not meet the rules! ({rules})', zh: '密码不符合规则！（{rules}）' },
  'password.rule.min_length': { en: 'at least {n} characters', zh: '至少 {n} 个字符' },
  'password.rule.max_length': { en: 'at most {n} characters', zh: '最多 {n} 个字符' },
  'password.rule.min_lowercase': { en: 'at least {n} lowercase letter(s)', zh: '至少 {n} 个小写字母' },
  'password.rule.min_uppercase': { en: 'at least {n} uppercase letter(s)', zh: '至少 {n} 个大写字母' },
  'password.rule.min_digits': { en: 'at least {n} digit(s)', zh: '至少 {n} 个数字' },
  'password.rule.min_special': { en: 'at least {n} special character(s)', zh: '至少 {n} 个特殊字符' },
  'password.tooSoon': {
    en: 'The password was changed less than {days} days ago; it cannot be changed again yet',
    zh: '密码在 {days} 天内已修改过，暂时不能再次修改',
  },
  'password.wrongOld': { en: 'The current password is incorrect', zh: '当前密码不正确' },
  'password.sameAsOld': {
    en: 'The new password must differ from the current one',
    zh: '新密码不能与当前密码相同',
  },
  'password.directoryUser': {
    en: 'Directory users change their password in the directory',
    zh: '目录用户请在目录服务中修改密码',
  },
  'config.keyTaken': { en: "Configuration key '{key}' already exists", zh: '配置项“{key}”已存在' },
  'config.notFound': { en: 'Configuration entry {id} not found', zh: '配置项 {id} 不存在' },
  'config.builtIn': {
    en: "Built-in configuration entry '{key}' cannot be deleted",
    zh: '内置配置项“{key}”不能删除',
  },
  'config.readOnly': { en: "Configuration entry '{key}' is read-only", zh: '配置项“{key}”为只读' },
  'config.badValue': { en: "Configuration entry '{key}': {rule}", zh: '配置项“{key}”：{rule}' },
  'config.mfaValues': { en: "must be '0' or '1'", zh: "只能为 '0' 或 '1'" },
  'config.uploadMissing': { en: 'file: no file was uploaded', zh: 'file：未上传文件' },
  'config.uploadType': {
    en: 'file: the logo must be a PNG, JPEG, WebP or SVG image',
    zh: 'file：标志图片必须是 PNG、JPEG、WebP 或 SVG 格式',
  },
  'config.uploadSize': { en: 'file: the file is larger than {max} KB', zh: 'file：文件大小超过 {max} KB' },
  'config.uploadKey': { en: "Only '{key}' accepts an uploaded file", zh: '只有“{key}”可以上传文件' },
  'domain.notFound': { en: "Domain '{domain}' not found", zh: '域“{domain}”不存在' },
  'domain.nameTaken': { en: "Domain '{domain}' already exists", zh: '域“{domain}”已存在' },
  'role.notFound': { en: 'Role {id} not found', zh: '角色 {id} 不存在' },
  'role.nameTaken': { en: "Role '{name}' already exists", zh: '角色“{name}”已存在' },
  'role.builtIn': {
    en: "Built-in role '{name}' cannot be changed or deleted",
    zh: '内置角色“{name}”不能修改或删除',
  },
  'role.inUse': {
    en: "Role '{name}' is held by {count} user(s); take it from them first",
    zh: '角色“{name}”仍被 {count} 个用户使用，请先解除',
  },
  'role.unknownPermission': {
    en: "permissions: '{permission}' is not a permission",
    zh: '权限：“{permission}”不是有效的权限',
  },
  'role.lastAdministrator': {
    en: 'At least one user must keep the Administrator role',
    zh: '至少需要保留一个拥有管理员角色的用户',
  },
  'user.deleteSelf': { en: 'You cannot delete your own account', zh: '不能删除自己的账户' },
  'user.badAppSecret': { en: 'Incorrect username or app secret', zh: '用户名或应用密钥错误' },
  'user.directoryPassword': {
    en: "User '{name}' signs in through a directory; set the password there",
    zh: '用户“{name}”通过目录登录，请在目录中设置密码',
  },
  'domain.notMemberOfCurrent': {
    en: 'User {id} is not a member of the current domain',
    zh: '用户 {id} 不是当前域的成员',
  },
  'domain.lastDomain': {
    en: 'User {id} would belong to no domain; add it to another domain first',
    zh: '用户 {id} 将不属于任何域，请先将其加入其他域',
  },
  'domain.rootFixed': { en: 'The root domain cannot be renamed or deleted', zh: '根域不能重命名或删除' },
  'domain.notEmpty': {
    en: "Domain '{domain}' is not empty ({members} member(s), {objects} object(s))",
    zh: '域“{domain}”不为空（{members} 个成员，{objects} 个对象）',
  },
  'policy.minimaTooLong': {
    en: 'The required lowercase, uppercase, digit and special characters ({sum}) exceed the maximum length ({max})',
    zh: '要求的小写、大写、数字和特殊字符总数（{sum}）超过最大长度（{max}）',
  },
  'policy.minAboveMax': {
    en: 'min_length ({min}) must not exceed max_length ({max})',
    zh: '最小长度（{min}）不能大于最大长度（{max}）',
  },
  'token.notFound': { en: 'Registration token {id} not found', zh: '注册令牌 {id} 不存在' },
  'token.nameTaken': { en: "Registration token '{name}' already exists", zh: '注册令牌“{name}”已存在' },
  'token.expiryPast': {
    en: 'expires_at: must be in the future (or "-" for forever)',
    zh: 'expires_at：必须是将来的时间（或用“-”表示永久）',
  },
  'token.unknown': { en: 'Unknown registration token', zh: '注册令牌无效' },
  'token.expired': { en: "Registration token '{name}' has expired", zh: '注册令牌“{name}”已过期' },
  'token.exhausted': {
    en: "Registration token '{name}' has no registrations left",
    zh: '注册令牌“{name}”的可用次数已用完',
  },
  'ukey.badCertificate': {
    en: 'certificate: not a PEM X.509 certificate',
    zh: '证书：不是 PEM 格式的 X.509 证书',
  },
  'ukey.certificateExpired': { en: 'certificate: expired on {date}', zh: '证书：已于 {date} 过期' },
  'ukey.unsupportedKey': {
    en: 'certificate: {type} keys are not supported (EC or RSA)',
    zh: '证书：不支持 {type} 密钥（仅支持 EC 或 RSA）',
  },
  'ukey.passwordFirst': { en: 'Sign in with your password first', zh: '请先使用密码登录' },
  'ukey.notBound': { en: 'No UKEY is bound to this account', zh: '此账户未绑定 UKEY' },
  'ukey.verifyFailed': { en: 'UKEY verification failed', zh: 'UKEY 验证失败' },
  'ldap.notFound': { en: 'LDAP connection {id} not found', zh: 'LDAP 连接 {id} 不存在' },
  'ldap.nameTaken': { en: "LDAP connection '{name}' already exists", zh: 'LDAP 连接“{name}”已存在' },
  'key.notFound': { en: 'Key {id} not found', zh: '密钥 {id} 不存在' },
  'key.versionNotFound': {
    en: "Key '{name}' has no version {version}",
    zh: '密钥“{name}”没有版本 {version}',
  },
  'key.nameTaken': { en: "Key '{name}' already exists", zh: '密钥“{name}”已存在' },
  'key.badUsage': { en: 'usage_mask: {reason}', zh: '用途：{reason}' },
  'key.cteAesOnly': {
    en: 'cte: TDE attributes apply to AES keys only, not {algorithm}',
    zh: 'cte：TDE 属性仅适用于 AES 密钥，不适用于 {algorithm}',
  },
  'key.badTransition': {
    en: "Key '{name}' is {state}: it cannot {action}",
    zh: '密钥“{name}”处于{state}状态，不能执行：{action}',
  },
  'key.compromisedFinal': {
    en: "Key '{name}' is compromised and can never be used again",
    zh: '密钥“{name}”已泄露，不能再启用',
  },
  'key.destroyActive': {
    en: "Key '{name}' is in use: disable it before destroying it",
    zh: '密钥“{name}”正在使用中，请先禁用再销毁',
  },
  'key.noMaterial': {
    en: "Key '{name}' has no material (destroyed)",
    zh: '密钥“{name}”已无密钥材料（已销毁）',
  },
  'key.notExportable': { en: "Key '{name}' does not allow export", zh: '密钥“{name}”不允许导出' },
  'key.notDeletable': { en: "Key '{name}' does not allow deletion", zh: '密钥“{name}”不允许删除' },
  'key.exportableSticky': {
    en: "Key '{name}' allows export: that cannot be taken back",
    zh: '密钥“{name}”已允许导出，不能撤销',
  },
  'key.publicOfPair': {
    en: "'{name}' is the public half of a key pair: delete the private key",
    zh: '“{name}”是密钥对的公钥，请删除私钥',
  },
  'key.wrapKeyRequired': {
    en: 'wrap_public_key: give the public key (Base64 SPKI DER, RSA or SM2) that wraps the exported material',
    zh: 'wrap_public_key：请提供用于包装导出材料的公钥（Base64 编码的 SPKI DER，RSA 或 SM2）',
  },
  'key.wrapKeyBad': {
    en: 'wrap_public_key: must be an RSA (2048, 3072, 4096) or SM2 public key, Base64 SPKI DER',
    zh: 'wrap_public_key：必须是 RSA（2048/3072/4096）或 SM2 公钥，Base64 编码的 SPKI DER',
  },
  'key.importLength': {
    en: 'content: {algorithm} needs {expected} bytes, got {got}',
    zh: 'content：{algorithm} 需要 {expected} 字节，实际 {got} 字节',
  },
  'key.importFormat': {
    en: 'content: not a {format} {algorithm} private key',
    zh: 'content：不是 {format} 格式的 {algorithm} 私钥',
  },
  'key.importMismatch': {
    en: 'content: the key is not a {algorithm} key',
    zh: 'content：该密钥不是 {algorithm} 密钥',
  },
  'key.importUnsupported': {
    en: 'content: importing {algorithm} keys is not supported; generate one instead',
    zh: 'content：不支持导入 {algorithm} 密钥，请直接生成',
  },
  'crypto.keyNotInUse': {
    en: "Key '{name}' is {state}: only keys in use can {op}",
    zh: '密钥“{name}”处于{state}状态：只有使用中的密钥才能执行 {op}',
  },
  'crypto.usageRefused': {
    en: "Key '{name}' is not allowed to {op} (usage: {usage})",
    zh: '密钥“{name}”不允许执行 {op}（用途：{usage}）',
  },
  'crypto.wrongKeyType': {
    en: "Key '{name}' ({algorithm}) cannot {op}",
    zh: '密钥“{name}”（{algorithm}）不能执行 {op}',
  },
  'crypto.versionGone': {
    en: "Key '{name}' version {version} has no material (destroyed or unknown)",
    zh: '密钥“{name}”的版本 {version} 没有密钥材料（已销毁或不存在）',
  },
  'crypto.publicKeyOnly': {
    en: "Key '{name}' is the public key of a key pair: it cannot {op} (that takes the private key '{private}')",
    zh: '密钥“{name}”是密钥对的公钥，不能执行 {op}（需使用私钥“{private}”）',
  },
  'crypto.failed': { en: '{op}: {reason}', zh: '{op}：{reason}' },
  'crypto.decryptFailed': {
    en: 'The ciphertext cannot be decrypted: wrong key, wrong additional data, or altered',
    zh: '无法解密：密钥错误、附加数据错误或密文已被篡改',
  },
  'crypto.unwrapFailed': {
    en: 'The wrapped key cannot be unwrapped: wrong key or version, or altered',
    zh: '无法解包：密钥或版本错误，或包装数据已被篡改',
  },
  'crypto.keyMismatch': {
    en: 'key_id: the ciphertext was made with key {id}',
    zh: 'key_id：该密文由密钥 {id} 生成',
  },
  'user.notFound': { en: 'User {id} not found', zh: '用户 {id} 不存在' },
  'user.nameTaken': { en: "User '{name}' already exists", zh: '用户“{name}”已存在' },
  'user.usernameSlash': {
    en: 'username: must not contain "/" (reserved for directory users)',
    zh: '用户名：不能包含“/”（保留给目录用户）',
  },
} as const satisfies Record<string, Record<Language, string>>;

export type MessageKey = keyof typeof catalogue;
export type MessageParams = Record<string, string | number>;

export function pickLanguage(header: string | undefined, cookie?: string | undefined): Language {
  const fromCookie = cookie?.toLowerCase();
  if (fromCookie) {
    if (fromCookie.startsWith('zh')) return 'zh';
    if (fromCookie.startsWith('en')) return 'en';
  }
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...rest] = part.trim().split(';');
      const q = rest.find((p) => p.trim().startsWith('q='));
      const weight = q ? Number(q.trim().slice(2)) : 1;
      return { tag: tag.toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag.startsWith('zh')) return 'zh';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

export function formatMessage(key: MessageKey, lang: Language, params: MessageParams = {}): string {
  const template: string = catalogue[key][lang];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

export const messageKeys = Object.keys(catalogue) as MessageKey[];
