import type { TemplateSource } from './index.js'

const rating = { var: 'rating' }

/**
 * A Turkish customer-satisfaction survey (outbound, after a service visit): a 1–5 rating, a
 * comment whose question depends on the rating, a recommendation yes/no, and a callback offer
 * to unhappy customers. Fully deterministic (runs with no LLM).
 */
export const surveyTr: TemplateSource = {
  id: 'survey-tr',
  name: 'Müşteri memnuniyeti anketi (Türkçe)',
  description:
    'Hizmet sonrası kısa bir memnuniyet anketi: 1–5 arası puan, puana göre değişen bir yorum sorusu, tavsiye sorusu ve memnun kalmayan müşterilere geri arama teklifi. LLM gerektirmez.',
  language: 'tr-TR',
  tags: ['outbound', 'survey', 'turkish', 'no-llm'],
  definition: {
    variables: [
      { name: 'company_name', type: 'string', default: 'Anadolu Teknik Servis', description: 'Aramayı yapan firmanın adı.' },
      { name: 'consent', type: 'boolean', default: false, description: 'Ankete katılmayı kabul etti mi?' },
      { name: 'rating', type: 'number', description: '1 (hiç memnun değil) ile 5 (çok memnun) arası puan.' },
      { name: 'comment', type: 'string', description: 'Müşterinin serbest yorumu.' },
      { name: 'would_recommend', type: 'boolean', description: 'Bizi tavsiye eder mi?' },
      { name: 'callback_requested', type: 'boolean', default: false, description: 'Bir temsilcinin geri aramasını istiyor mu?' },
    ],
    nodes: [
      {
        id: 'start',
        type: 'start',
        position: { x: 0, y: 0 },
        data: { first_message: { mode: 'static', text: 'Merhaba, {{company_name}} müşteri hizmetlerinden arıyorum.' } },
      },
      {
        id: 'ask_consent',
        type: 'collect',
        position: { x: 0, y: 120 },
        data: {
          variable: 'consent',
          value_type: 'yes_no',
          prompt: 'Geçtiğimiz günlerde aldığınız hizmetle ilgili yaklaşık bir dakika sürecek kısa bir anketimiz var. Katılmak ister misiniz?',
          reprompt: 'Ankete katılmak isterseniz lütfen evet, istemezseniz hayır deyin.',
          max_attempts: 2,
        },
      },
      { id: 'check_consent', type: 'condition', position: { x: 0, y: 240 }, data: { description: 'Katılmayı kabul etti mi?' } },
      {
        id: 'ask_rating',
        type: 'collect',
        position: { x: 0, y: 360 },
        data: {
          variable: 'rating',
          value_type: 'number',
          prompt:
            'Teşekkür ederim. Aldığınız hizmetten ne kadar memnun kaldınız? Lütfen 1 ile 5 arasında bir puan verin; 1 hiç memnun kalmadım, 5 çok memnun kaldım anlamına geliyor.',
          reprompt: 'Puanınızı 1 ile 5 arasında bir sayı olarak söyler misiniz?',
          max_attempts: 3,
        },
      },
      { id: 'check_rating', type: 'condition', position: { x: 0, y: 480 }, data: { description: 'Puana göre dallan' } },
      {
        id: 'rating_out_of_range',
        type: 'say',
        position: { x: 320, y: 360 },
        data: { text: 'Kusura bakmayın, puanın 1 ile 5 arasında olması gerekiyor.' },
      },
      {
        id: 'ask_problem',
        type: 'collect',
        position: { x: -320, y: 600 },
        data: {
          variable: 'comment',
          value_type: 'text',
          prompt: 'Bunu duyduğumuza gerçekten üzüldük. Yaşadığınız sorunu kısaca anlatır mısınız? Söyledikleriniz doğrudan ekibimize iletilecek.',
          reprompt: 'Neler yaşadığınızı birkaç cümleyle anlatabilir misiniz?',
          max_attempts: 2,
        },
      },
      {
        id: 'ask_improvement',
        type: 'collect',
        position: { x: 0, y: 600 },
        data: {
          variable: 'comment',
          value_type: 'text',
          prompt: 'Teşekkür ederiz. Deneyiminizi daha iyi hâle getirmek için neyi farklı yapabilirdik?',
          reprompt: 'Aklınıza gelen bir öneri var mı? Kısaca paylaşabilirsiniz.',
          max_attempts: 2,
        },
      },
      {
        id: 'ask_highlight',
        type: 'collect',
        position: { x: 320, y: 600 },
        data: {
          variable: 'comment',
          value_type: 'text',
          prompt: 'Bunu duymak bizi çok mutlu etti! Özellikle neyi beğendiniz?',
          reprompt: 'En çok neyi beğendiğinizi kısaca söyleyebilir misiniz?',
          max_attempts: 2,
        },
      },
      {
        id: 'ask_recommend',
        type: 'collect',
        position: { x: 0, y: 720 },
        data: {
          variable: 'would_recommend',
          value_type: 'yes_no',
          prompt: 'Son olarak, bizi bir arkadaşınıza ya da yakınınıza tavsiye eder misiniz?',
          reprompt: 'Evet ya da hayır olarak cevaplayabilir misiniz?',
          max_attempts: 2,
        },
      },
      { id: 'check_followup', type: 'condition', position: { x: 0, y: 840 }, data: { description: 'Düşük puanlara geri arama teklif et' } },
      {
        id: 'ask_callback',
        type: 'collect',
        position: { x: -320, y: 960 },
        data: {
          variable: 'callback_requested',
          value_type: 'yes_no',
          prompt: 'Yaşadığınız sorunla ilgili bir müşteri temsilcimizin sizi geri aramasını ister misiniz?',
          reprompt: 'Sizi bir temsilcimizin aramasını ister misiniz? Evet ya da hayır demeniz yeterli.',
          max_attempts: 2,
        },
      },
      { id: 'check_callback', type: 'condition', position: { x: -320, y: 1080 }, data: { description: 'Geri arama istedi mi?' } },
      {
        id: 'end_callback',
        type: 'end',
        position: { x: -320, y: 1200 },
        data: {
          message: 'Talebinizi aldık; bir müşteri temsilcimiz bir iş günü içinde sizi arayacak. Görüşleriniz için teşekkür ederiz, iyi günler dileriz.',
          disposition: 'callback_requested',
        },
      },
      {
        id: 'end_thanks',
        type: 'end',
        position: { x: 0, y: 1200 },
        data: {
          message: 'Anketimiz bu kadardı. Görüşleriniz bizim için çok değerli, zaman ayırdığınız için teşekkür ederiz. İyi günler dileriz!',
          disposition: 'completed',
        },
      },
      {
        id: 'end_declined',
        type: 'end',
        position: { x: 320, y: 240 },
        data: { message: 'Anlıyorum, hiç sorun değil. Zaman ayırdığınız için teşekkür ederiz, iyi günler dileriz.', disposition: 'declined' },
      },
      {
        id: 'end_no_response',
        type: 'end',
        position: { x: -320, y: 240 },
        data: { message: 'Sizi duyamıyorum galiba. Daha sonra tekrar ulaşmaya çalışacağız. İyi günler dileriz.', disposition: 'no_response' },
      },
    ],
    edges: [
      { id: 'e_start', source: 'start', target: 'ask_consent' },
      { id: 'e_consent', source: 'ask_consent', target: 'check_consent', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_consent_silent', source: 'ask_consent', target: 'end_no_response', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      {
        id: 'e_agreed',
        source: 'check_consent',
        target: 'ask_rating',
        label: 'Kabul etti',
        condition: { kind: 'expression', expression: { '==': [{ var: 'consent' }, true] } },
      },
      { id: 'e_declined', source: 'check_consent', target: 'end_declined', label: 'Reddetti' },
      { id: 'e_rating', source: 'ask_rating', target: 'check_rating', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_rating_silent', source: 'ask_rating', target: 'end_no_response', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      {
        id: 'e_out_of_range',
        source: 'check_rating',
        target: 'rating_out_of_range',
        label: '1–5 dışında',
        condition: { kind: 'expression', expression: { or: [{ '<': [rating, 1] }, { '>': [rating, 5] }] } },
      },
      { id: 'e_low', source: 'check_rating', target: 'ask_problem', label: '1–2', condition: { kind: 'expression', expression: { '<=': [1, rating, 2] } } },
      { id: 'e_mid', source: 'check_rating', target: 'ask_improvement', label: '3', condition: { kind: 'expression', expression: { '<': [2, rating, 4] } } },
      { id: 'e_high', source: 'check_rating', target: 'ask_highlight', label: '4–5' },
      { id: 'e_ask_again', source: 'rating_out_of_range', target: 'ask_rating' },
      { id: 'e_problem', source: 'ask_problem', target: 'ask_recommend' },
      { id: 'e_improvement', source: 'ask_improvement', target: 'ask_recommend' },
      { id: 'e_highlight', source: 'ask_highlight', target: 'ask_recommend' },
      { id: 'e_recommend', source: 'ask_recommend', target: 'check_followup' },
      {
        id: 'e_unhappy',
        source: 'check_followup',
        target: 'ask_callback',
        label: 'Puan 1–2',
        condition: { kind: 'expression', expression: { '<=': [rating, 2] } },
      },
      { id: 'e_done', source: 'check_followup', target: 'end_thanks' },
      { id: 'e_callback_answer', source: 'ask_callback', target: 'check_callback' },
      {
        id: 'e_wants_callback',
        source: 'check_callback',
        target: 'end_callback',
        label: 'Geri arama',
        condition: { kind: 'expression', expression: { '==': [{ var: 'callback_requested' }, true] } },
      },
      { id: 'e_no_callback', source: 'check_callback', target: 'end_thanks' },
    ],
  },
  config: {
    language: 'tr-TR',
    first_speaker: 'agent',
    stt: { provider: 'deepgram', model: 'nova-2', language: 'tr' },
    tts: { provider: 'espeak', voice: 'tr' },
    max_call_duration_s: 300,
    silence_timeout_s: 10,
  },
}
