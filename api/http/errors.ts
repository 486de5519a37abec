/**
 * Every error code the API returns, with its HTTP status and its English and Turkish message.
 * The spec fixes the codes it names; the others cover its "not shown" cases (docs/api.md lists all).
 */
export const ERRORS = {
  bad_request: [400, 'The request is malformed or has an invalid value.', 'İstek hatalı ya da geçersiz bir değer içeriyor.'],
  invalid_scope: [400, 'The key asks for a scope its creator does not hold.', 'Anahtar, oluşturanın sahip olmadığı bir yetki kapsamı istiyor.'],
  invalid_token: [400, 'The token is invalid, expired or already used.', 'Belirteç geçersiz, süresi dolmuş ya da daha önce kullanılmış.'],
  same_environment: [400, 'The agent is already in that environment.', 'Ajan zaten o ortamda.'],
  unknown_environment: [400, 'No environment of this organization has that name or id.', 'Bu kuruluşun bu ad ya da kimlikte bir ortamı yok.'],
  unknown_template: [400, 'There is no template with that id.', 'Bu kimlikte bir şablon yok.'],
  telephony_not_configured: [
    400,
    'Phone calls are not available on this server yet: no telephony provider is configured.',
    'Bu sunucuda telefon aramaları henüz kullanılamıyor: yapılandırılmış bir telefon sağlayıcısı yok.',
  ],
  payments_not_configured: [
    400,
    'Top-ups are not available on this server: no payment provider is configured (OZAN_BILLING_PAYMENTS).',
    'Bu sunucuda kredi yükleme kullanılamıyor: yapılandırılmış bir ödeme sağlayıcısı yok (OZAN_BILLING_PAYMENTS).',
  ],
  invalid_signature: [400, 'The webhook signature is missing, invalid or too old.', 'Webhook imzası eksik, geçersiz ya da çok eski.'],
  unknown_version: [400, 'The agent has no published version with that number.', 'Ajanın bu numarada yayımlanmış bir sürümü yok.'],
  // The English default names the LLM (the only provider thrown without a message); the Turkish
  // one is said for every provider (speech-to-text, text-to-speech, LLM), whose English messages name it.
  provider_not_configured: [
    400,
    'No LLM is configured: store an "openai" credential (PUT /api/v1/credentials) or set OZAN_OPENAI_API_KEY.',
    'Ajanın kullandığı bir sağlayıcının (LLM, konuşma tanıma ya da ses sentezi) anahtarı yok: kimlik bilgisini kaydedin (PUT /api/v1/credentials) ya da sunucu yöneticisi ortam değişkenini ayarlasın (OpenAI için OZAN_OPENAI_API_KEY).',
  ],
  credential_missing: [
    400,
    'This integration needs a stored credential for its provider: store it with PUT /api/v1/credentials.',
    'Bu entegrasyon, sağlayıcısı için kayıtlı bir kimlik bilgisi gerektirir: PUT /api/v1/credentials ile kaydedin.',
  ],
  authentication_required: [401, 'A valid API key or session token is required.', 'Geçerli bir API anahtarı ya da oturum belirteci gerekli.'],
  invalid_credentials: [401, 'The email or password is incorrect.', 'E-posta ya da parola hatalı.'],
  insufficient_credit: [402, 'The organization is out of credit.', 'Kuruluşun kredisi tükendi.'],
  quota_exceeded: [402, 'The plan limit has been reached.', 'Plan sınırına ulaşıldı.'],
  permission_denied: [403, 'You are not allowed to do this.', 'Bu işlem için yetkiniz yok.'],
  feature_disabled: [403, 'The organization has turned this feature off.', 'Kuruluş bu özelliği kapattı.'],
  user_session_required: [
    403,
    'This needs a signed-in dashboard session; API keys cannot do it.',
    'Bu işlem oturum açmış bir panel kullanıcısı gerektirir; API anahtarları yapamaz.',
  ],
  not_found: [404, 'The resource was not found.', 'Kaynak bulunamadı.'],
  conflict: [409, 'The request conflicts with the current state.', 'İstek, mevcut durumla çakışıyor.'],
  email_taken: [409, 'An account with this email already exists.', 'Bu e-posta ile bir hesap zaten var.'],
  last_owner: [409, 'The organization must keep at least one owner.', 'Kuruluşun en az bir sahibi kalmalı.'],
  builtin_role: [409, 'Built-in roles cannot be changed or deleted.', 'Yerleşik roller değiştirilemez ve silinemez.'],
  role_in_use: [409, 'The role is still assigned to members or offered by invitations.', 'Rol hâlâ üyelere atanmış ya da davetlerde sunuluyor.'],
  role_exists: [409, 'A role with this name already exists.', 'Bu adla bir rol zaten var.'],
  already_in_environment: [409, 'The target environment already holds this agent.', 'Hedef ortamda bu ajan zaten var.'],
  agent_invalid: [
    409,
    "The agent's saved definition or config no longer passes validation: save a corrected one, then publish.",
    'Ajanın kayıtlı tanımı ya da yapılandırması artık doğrulamadan geçmiyor: düzeltilmiş halini kaydedip yayımlayın.',
  ],
  no_published_version: [
    409,
    'The agent has no published version yet: publish it, or ask for the draft with use_draft.',
    'Ajanın henüz yayımlanmış sürümü yok: yayımlayın ya da use_draft ile taslağı isteyin.',
  ],
  session_ended: [409, 'The session has ended.', 'Oturum sona erdi.'],
  voice_session: [
    409,
    'This session is a voice call: it takes audio over its socket, and POST /api/v1/calls/{call_uuid}/control.',
    'Bu oturum bir sesli arama: sesi soketinden alır; POST /api/v1/calls/{call_uuid}/control kullanın.',
  ],
  webhook_endpoint_limit: [
    409,
    'This environment already has the most webhook endpoints allowed (20): delete one first.',
    'Bu ortamda izin verilen en fazla webhook uç noktası (20) zaten var: önce birini silin.',
  ],
  delivery_in_progress: [
    409,
    'The delivery is waiting or being sent; redeliver it once it has finished.',
    'Teslimat bekliyor ya da gönderiliyor; bittikten sonra yeniden gönderin.',
  ],
  tool_name_taken: [409, 'The organization already has a tool with this name.', 'Kuruluşta bu adda bir araç zaten var.'],
  tool_limit: [
    409,
    'The organization already has the most tools allowed (200): delete one first.',
    'Kuruluşta izin verilen en fazla araç (200) zaten var: önce birini silin.',
  ],
  tool_secrets_unreadable: [
    409,
    "The tool's secret headers cannot be decrypted (the encryption key changed): send them again with PATCH.",
    'Aracın gizli başlıkları çözülemiyor (şifreleme anahtarı değişti): PATCH ile yeniden gönderin.',
  ],
  endpoint_disabled: [409, 'The webhook endpoint is disabled: enable it to redeliver.', 'Webhook uç noktası devre dışı: yeniden göndermek için etkinleştirin.'],
  automation_limit: [
    409,
    'This environment already has the most automations allowed (50): delete one first.',
    'Bu ortamda izin verilen en fazla otomasyon (50) zaten var: önce birini silin.',
  ],
  run_in_progress: [
    409,
    'The run is waiting or in progress; retry it once it has finished.',
    'Çalıştırma bekliyor ya da sürüyor; bittikten sonra yeniden deneyin.',
  ],
  automation_disabled: [
    409,
    'The automation is disabled: enable it to retry its runs.',
    'Otomasyon devre dışı: çalıştırmalarını yeniden denemek için etkinleştirin.',
  ],
  sip_trunk_limit: [
    409,
    'This environment already has the most SIP trunks allowed (50): delete one first.',
    'Bu ortamda izin verilen en fazla SIP hattı (50) zaten var: önce birini silin.',
  ],
  trunk_in_use: [
    409,
    'Phone numbers still use this SIP trunk: move or delete them first.',
    'Bu SIP hattını hâlâ telefon numaraları kullanıyor: önce onları taşıyın ya da silin.',
  ],
  phone_number_taken: [409, 'This phone number is already in use on this server.', 'Bu telefon numarası bu sunucuda zaten kullanılıyor.'],
  phone_number_limit: [
    409,
    'This environment already has the most phone numbers allowed (1000): delete one first.',
    'Bu ortamda izin verilen en fazla telefon numarası (1000) zaten var: önce birini silin.',
  ],
  flag_limit: [
    409,
    'This organization already has the most feature flags allowed (100): change an existing one.',
    'Bu kuruluşta izin verilen en fazla özellik bayrağı (100) zaten var: mevcut birini değiştirin.',
  ],
  test_suite_limit: [
    409,
    'This environment already has the most test suites allowed (200): delete one first.',
    'Bu ortamda izin verilen en fazla test paketi (200) zaten var: önce birini silin.',
  ],
  test_run_limit: [
    409,
    'This environment already has the most test runs queued or running (10): wait for one to finish.',
    'Bu ortamda sırada ya da çalışmakta olan en fazla test koşusu (10) zaten var: birinin bitmesini bekleyin.',
  ],
  suite_agent_missing: [
    409,
    "The suite's agent was deleted: point the suite at another agent (PATCH workflow_uuid) to run it.",
    'Paketin ajanı silindi: çalıştırmak için paketi başka bir ajana yönlendirin (PATCH workflow_uuid).',
  ],
  voice_unavailable: [
    409,
    'Voice test runs are not available on this server: it runs no call engine.',
    'Bu sunucuda sesli test koşuları kullanılamıyor: bir arama motoru çalıştırmıyor.',
  ],
  already_member: [409, 'This person is already a member of the organization.', 'Bu kişi zaten kuruluşun üyesi.'],
  invitation_email_mismatch: [403, 'This invitation was sent to another email address.', 'Bu davet başka bir e-posta adresine gönderildi.'],
  file_too_large: [413, 'The uploaded file is too large.', 'Yüklenen dosya çok büyük.'],
  payload_too_large: [413, 'The request body is too large.', 'İstek gövdesi çok büyük.'],
  unsupported_media_type: [
    415,
    'The request body must be application/json (multipart/form-data for a file upload).',
    'İstek gövdesi application/json olmalı (dosya yüklemede multipart/form-data).',
  ],
  unsupported_file_type: [
    415,
    'This file type is not supported: upload a .txt, .md, .html, .pdf or .docx file.',
    'Bu dosya türü desteklenmiyor: .txt, .md, .html, .pdf ya da .docx dosyası yükleyin.',
  ],
  rate_limited: [429, 'Too many requests. Try again after the time in Retry-After.', 'Çok fazla istek. Retry-After süresi kadar bekleyip yeniden deneyin.'],
  concurrency_limit: [429, 'Too many live calls at once.', 'Aynı anda çok fazla canlı arama var.'],
  internal_error: [500, 'Something went wrong on our side.', 'Bizim tarafımızda bir sorun oluştu.'],
  upstream_error: [502, 'An upstream provider failed.', 'Bir dış sağlayıcı hata verdi.'],
  service_unavailable: [503, 'The service is temporarily unavailable.', 'Hizmet geçici olarak kullanılamıyor.'],
} as const satisfies Record<string, readonly [number, string, string]>

export type ErrorCode = keyof typeof ERRORS
export type Lang = 'en' | 'tr'

/**
 * The one error type routes and services throw. `message` overrides the table's text with a
 * specific, safe-to-show English sentence (e.g. which field is wrong); it is never used for 5xx.
 */
export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    readonly detailMessage?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detailMessage ?? ERRORS[code][1])
    this.name = 'ApiError'
    this.status = ERRORS[code][0]
  }

  /** The text shown to the caller in their language. */
  messageFor(lang: Lang): string {
    if (this.detailMessage && this.status < 500 && lang === 'en') return this.detailMessage
    const [, en, tr] = ERRORS[this.code]
    return lang === 'tr' ? tr : en
  }
}

export function errorBody(code: ErrorCode, message: string, requestId: string) {
  return { error: { code, message, request_id: requestId } }
}
