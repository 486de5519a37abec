import type { TemplateSource } from './index.js'

/**
 * An inbound front desk: answers from the knowledge base, hands over to a person from anywhere
 * (a global transfer), and takes a callback number when nobody picks up. Needs an LLM.
 */
export const receptionist: TemplateSource = {
  id: 'receptionist',
  name: 'Receptionist with knowledge base',
  description:
    'Answers callers’ questions about your business from your knowledge base, connects them with a person whenever they ask, and takes a callback number when nobody is free.',
  language: 'en-US',
  tags: ['inbound', 'knowledge-base', 'transfer'],
  definition: {
    variables: [
      { name: 'business_name', type: 'string', default: 'Bright Smile Dental', description: 'Your business as callers know it.' },
      { name: 'caller_name', type: 'string', description: 'The caller’s name, when they give it.' },
      { name: 'callback_number', type: 'phone', description: 'Where to call the caller back when a transfer fails.' },
    ],
    nodes: [
      {
        id: 'start',
        type: 'start',
        position: { x: 0, y: 0 },
        data: {
          first_message: { mode: 'static', text: 'Thank you for calling {{business_name}}. This is the virtual receptionist. How can I help you today?' },
        },
      },
      {
        id: 'front_desk',
        type: 'conversation',
        name: 'Front desk',
        position: { x: 0, y: 160 },
        data: {
          prompt:
            'You are the friendly receptionist of {{business_name}}, speaking with a caller on the phone. ' +
            'Answer questions about opening hours, location, parking, services, prices and policies using only the knowledge base. ' +
            'If the answer is not there, say so honestly and offer to connect the caller with a member of staff. ' +
            'Keep every reply to one or two short sentences. Never invent prices, availability or medical advice. ' +
            'If the caller tells you their name, use it.',
          knowledge_base: { enabled: true, top_k: 4 },
          extract: [{ variable: 'caller_name', description: 'The caller’s first name, if they say it.' }],
        },
      },
      {
        id: 'lookup',
        type: 'knowledge',
        name: 'Look up a fact',
        position: { x: 320, y: 160 },
        data: {
          query: '{{system.last_user_message}}',
          top_k: 3,
          answer_prompt:
            'Answer the caller’s question in one or two short spoken sentences, using only the passages found. ' +
            'If they do not contain the answer, say you are not sure and offer to connect the caller with a member of staff.',
        },
      },
      {
        id: 'human',
        type: 'transfer',
        name: 'Talk to a human',
        global: { intent: 'The caller asks to talk to a human, a receptionist, or a real person' },
        position: { x: -320, y: 320 },
        data: {
          target: '+15555550100',
          mode: 'warm',
          message: "Of course. I'm connecting you with a member of our team now. Please hold for a moment.",
          summary_prompt: 'In one sentence, tell the receptionist who is calling and what they need.',
        },
      },
      {
        id: 'take_number',
        type: 'collect',
        name: 'Take a callback number',
        position: { x: -320, y: 480 },
        data: {
          variable: 'callback_number',
          value_type: 'phone',
          prompt: "I'm sorry, nobody from our team is free right now. What's the best number for us to call you back on?",
          reprompt: 'Could you say that number again, digit by digit?',
          max_attempts: 3,
        },
      },
      {
        id: 'end_callback',
        type: 'end',
        position: { x: -480, y: 640 },
        data: {
          message: 'Thank you. A member of our team will call you back at {{callback_number}} as soon as possible. Goodbye!',
          disposition: 'callback_requested',
        },
      },
      {
        id: 'end_unreached',
        type: 'end',
        position: { x: -160, y: 640 },
        data: { message: "I'm sorry I couldn't help more today. Please call us again during office hours. Goodbye!", disposition: 'transfer_failed' },
      },
      {
        id: 'goodbye',
        type: 'end',
        position: { x: 0, y: 480 },
        data: { message: 'Thanks for calling {{business_name}}. Have a great day!', disposition: 'resolved' },
      },
    ],
    edges: [
      { id: 'e_start', source: 'start', target: 'front_desk' },
      {
        id: 'e_ask_fact',
        source: 'front_desk',
        target: 'lookup',
        label: 'Factual question',
        condition: {
          kind: 'intent',
          description: 'The caller asks a specific factual question about the business, such as opening hours, address, parking, insurance or prices',
        },
      },
      { id: 'e_answered', source: 'lookup', target: 'front_desk' },
      {
        id: 'e_done',
        source: 'front_desk',
        target: 'goodbye',
        label: 'Done',
        condition: { kind: 'intent', description: 'The caller has what they needed and wants to end the call' },
      },
      { id: 'e_no_answer', source: 'human', target: 'take_number', label: 'Nobody answered', condition: { kind: 'outcome', outcome: 'failure' } },
      { id: 'e_number', source: 'take_number', target: 'end_callback', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_no_number', source: 'take_number', target: 'end_unreached', condition: { kind: 'outcome', outcome: 'max_attempts' } },
    ],
  },
  config: {
    language: 'en-US',
    first_speaker: 'agent',
    tts: { provider: 'espeak', voice: 'en-us' },
    max_call_duration_s: 900,
    silence_timeout_s: 20,
  },
}
