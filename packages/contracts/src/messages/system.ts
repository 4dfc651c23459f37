import { defineMessages } from './define.js';

/** Initialization, activation and the seal. */
export const systemMessages = defineMessages({
  en: {
    'system.notInitialized': 'The system is not initialized. Complete the initialization first',
    'system.notActivated': 'The system is not activated. Create the first administrator first',
    'system.sealed': 'The system is sealed: the seal file {file} is missing or does not match the database',
    'system.setupCodeRequired':
      'setup_code: the one-time setup code is missing or wrong; it is printed on the server console and written to the file setup-code in its data directory',
    'system.alreadyInitialized': 'The system is already initialized',
    'system.alreadyActivated': 'The system is already activated',
    'system.componentsPending': 'Only {done} of {total} key components have been generated',
    'system.componentsDone': 'All {total} key components have been generated; finish the initialization',
    'system.noInitInProgress': 'No initialization is in progress: generate the key components first',
  },
  zh: {
    'system.notInitialized': '系统尚未初始化，请先完成初始化',
    'system.notActivated': '系统尚未激活，请先创建首个管理员',
    'system.sealed': '系统处于封存状态：封存文件 {file} 缺失或与数据库不匹配',
    'system.setupCodeRequired':
      'setup_code：一次性设置码缺失或错误；它已打印在服务器控制台，并写入数据目录中的 setup-code 文件',
    'system.alreadyInitialized': '系统已经初始化',
    'system.alreadyActivated': '系统已经激活',
    'system.componentsPending': '已生成 {done}/{total} 个密钥分量，尚未全部生成',
    'system.componentsDone': '{total} 个密钥分量已全部生成，请完成初始化',
    'system.noInitInProgress': '没有进行中的初始化：请先生成密钥分量',
  },
});
