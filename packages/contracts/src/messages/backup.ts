import { defineMessages } from './define.js';

/** Backup keys, backups and restore (settings › backup keys, backups). */
export const backupMessages = defineMessages({
  en: {
    'backup.keyNotFound': 'Backup key {id} not found',
    'backup.noDefaultKey': 'No default system backup key: create one or choose a key',
    'backup.noDefaultDomainKey': 'No default backup key in this domain: create one or choose a key',
    'backup.hsmSystemOnly': 'tied_to_hsm: only a system backup can be bound to the HSM',
    'backup.hsmNotBound': 'tied_to_hsm: this server is not bound to an HSM (settings › HSM)',
    'backup.hsmRequired':
      'This backup is bound to the HSM {token}: restore it on a server bound to the same HSM key',
    'backup.keyScope':
      'backup_key_id: backup key {name} is a {actual} key; a {expected} backup needs a {expected} key',
    'backup.keyOnlyOne':
      'Backup key {name} is the only key able to open {count} backup(s) (for example {backup}): delete those backups first',
    'backup.keyFileMalformed': 'file: not a KSP backup key file ({reason})',
    'backup.keyFilePassword':
      'password: it does not open this backup key file (wrong password, or the file was altered)',
    'backup.keyExists': 'Backup key {id} is here already',
    'backup.notFound': 'Backup {id} not found',
    'backup.notCompleted': 'Backup {id} is not completed (status {status})',
    'backup.busy': 'A restore is running: wait until it ends',
    'backup.systemOnly': 'A {scope} backup or backup key can only be handled from the root domain',
    'backup.malformed': 'file: not a KSP backup archive ({reason})',
    'backup.newerFormat':
      'This backup has format version {version}; this server reads up to version {supported}: upgrade first',
    'backup.missingKey':
      'Backup key {id} is not here: upload the backup key file of this backup (with its password) first',
    'backup.wrongKey': 'file: backup key {id} does not open this backup: wrong key, or the file was altered',
    'backup.tampered': 'file: the backup file is damaged or altered (chunk {chunk} fails authentication)',
    'backup.truncated': 'file: the backup file is truncated: its last chunk is missing',
    'backup.otherDomain':
      'This backup belongs to domain {domain}; a domain administrator restores only their own domain',
    'backup.idTaken': 'Cannot restore: {kind} {id} exists in another domain',
    'backup.missingCa': 'Cannot restore certificate {id}: its CA {ca} is not in the domain',
    'backup.filterEmpty': 'filters: a partial backup needs key ids, a key name or certificate ids',
    'backup.fileMissing':
      "The archive of backup {id} is not in this node's backup directory: node {node} wrote it. Use it on that node, or give every node the same KSP_BACKUP_DIR on shared storage",
    'backup.uploadMissing': 'file: send the archive as the multipart field "file"',
    'backup.rotationDescription': 'Key rotation: task {task}, run {run}',
    'backup.failed': 'Backup {id} failed: {reason}',
    'backup.domainGone': 'Domain {domain} no longer exists: its backup cannot be written',
    'backup.internal': 'Backup {id} failed on an internal error: the server log has the details',
    'backup.restoreInterrupted':
      'The restore was interrupted by a shutdown of the server; nothing was changed. Restore again',
  },
  zh: {
    'backup.keyNotFound': '备份密钥 {id} 不存在',
    'backup.noDefaultKey': '没有默认的系统备份密钥：请先创建或指定备份密钥',
    'backup.noDefaultDomainKey': '本域没有默认的备份密钥：请先创建或指定备份密钥',
    'backup.hsmSystemOnly': 'tied_to_hsm：只有系统备份可以绑定到 HSM',
    'backup.hsmNotBound': 'tied_to_hsm：本服务器未绑定 HSM（设置 › HSM）',
    'backup.hsmRequired': '此备份绑定到 HSM {token}：请在绑定到同一 HSM 密钥的服务器上恢复',
    'backup.keyScope':
      'backup_key_id：备份密钥 {name} 的范围是 {actual}；{expected} 备份需要 {expected} 备份密钥',
    'backup.keyOnlyOne': '备份密钥 {name} 是唯一能打开 {count} 个备份（如 {backup}）的密钥：请先删除这些备份',
    'backup.keyFileMalformed': 'file：不是 KSP 备份密钥文件（{reason}）',
    'backup.keyFilePassword': 'password：密码无法打开该备份密钥文件（密码错误或文件被改动）',
    'backup.keyExists': '备份密钥 {id} 已存在',
    'backup.notFound': '备份 {id} 不存在',
    'backup.notCompleted': '备份 {id} 尚未完成（状态 {status}）',
    'backup.busy': '正在恢复：请等待其结束',
    'backup.systemOnly': '{scope} 范围的备份或备份密钥只能在根域中操作',
    'backup.malformed': 'file：不是 KSP 备份文件（{reason}）',
    'backup.newerFormat': '该备份的格式版本为 {version}；本服务器最多读取版本 {supported}：请先升级',
    'backup.missingKey': '备份密钥 {id} 不在本系统：请先上传该备份的备份密钥文件（及其密码）',
    'backup.wrongKey': 'file：备份密钥 {id} 无法打开该备份：密钥错误或文件被改动',
    'backup.tampered': 'file：备份文件已损坏或被改动（第 {chunk} 块认证失败）',
    'backup.truncated': 'file：备份文件不完整：缺少最后一块',
    'backup.otherDomain': '该备份属于域 {domain}；域管理员只能恢复本域',
    'backup.idTaken': '无法恢复：{kind} {id} 已存在于其他域',
    'backup.missingCa': '无法恢复证书 {id}：其 CA {ca} 不在该域中',
    'backup.filterEmpty': 'filters：部分备份需要筛选条件：密钥 ID、密钥名称或证书 ID',
    'backup.fileMissing':
      '备份 {id} 的文件不在本节点的备份目录中：它由节点 {node} 写入。请在该节点上使用，或让所有节点的 KSP_BACKUP_DIR 指向同一共享存储',
    'backup.uploadMissing': 'file：请以 multipart 字段 "file" 发送备份文件',
    'backup.rotationDescription': '密钥轮换：任务 {task}，运行 {run}',
    'backup.failed': '备份 {id} 失败：{reason}',
    'backup.domainGone': '域 {domain} 已不存在，无法写入它的备份',
    'backup.internal': '备份 {id} 因内部错误失败，详情见服务器日志',
    'backup.restoreInterrupted': '恢复因服务器停止而中断，未做任何更改。请重新恢复',
  },
});
