"""Stock Hugging Face transformers models at CI size (random weights from
from_config: no download), called as people call them: model(input_ids=...,
labels=...) returns the model's own loss. The factories return
(model, kwargs_dict) for remat-export / remat.compare (docs/models.md,
"Library models"):

  scripts/remat-export torch bench/models/hub/transformers_lm.py:llama -o llama.mlir

BERT's labels hold -100 (ignore_index) at unmasked positions, as a masked-LM
data collator makes them; the causal LMs use labels = input_ids, as the HF
training examples do."""
import torch
import transformers

VOCAB, BATCH, SEQ = 128, 8, 32
SMALL = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
             max_position_embeddings=64)


def _batch(seed=0, mlm=False):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    labels = ids.clone()
    if mlm:  # a masked-LM collator's labels: -100 where the token is not predicted
        keep = torch.rand((BATCH, SEQ), generator=g) < 0.25
        keep[:, 0] = True
        labels[~keep] = -100
    return {"input_ids": ids, "labels": labels}


def _model(auto, cfg, attn):
    torch.manual_seed(0)
    return auto.from_config(cfg, attn_implementation=attn).train()


def llama(attn="sdpa"):
    cfg = transformers.LlamaConfig(num_key_value_heads=2, **SMALL)
    return _model(transformers.AutoModelForCausalLM, cfg, attn), _batch()


def qwen2(attn="sdpa"):
    cfg = transformers.Qwen2Config(num_key_value_heads=2, **SMALL)
    return _model(transformers.AutoModelForCausalLM, cfg, attn), _batch()


def gpt2(attn="eager"):
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    return _model(transformers.AutoModelForCausalLM, cfg, attn), _batch()


def bert_mlm(attn="sdpa"):
    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                  num_attention_heads=4, max_position_embeddings=64, hidden_dropout_prob=0.0,
                                  attention_probs_dropout_prob=0.0)
    return _model(transformers.AutoModelForMaskedLM, cfg, attn), _batch(1, mlm=True)


def falcon(attn="eager"):
    """FalconForCausalLM with multi-query attention (one key/value head): its split of the
    fused QKV projection indexes with -2 and -1 (fused_qkv[..., [-2], :]), whose backward is an
    index_put with negative indices (tm_tensor.scatter: lib/Scatter.h)."""
    cfg = transformers.FalconConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                    multi_query=True, hidden_dropout=0.0, attention_dropout=0.0,
                                    max_position_embeddings=64)
    return _model(transformers.AutoModelForCausalLM, cfg, attn), _batch()


def roberta(attn="eager"):
    """RobertaForSequenceClassification: its position ids are a cumsum of the
    padding mask (create_position_ids_from_input_ids; torch-mlir's
    tm_tensor.scan, lib/Scan.h); padding (id 1) at the end of two rows."""
    cfg = transformers.RobertaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, max_position_embeddings=SEQ + 2, hidden_dropout_prob=0.0,
                                     attention_probs_dropout_prob=0.0, num_labels=3)
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(3, VOCAB, (BATCH, SEQ), generator=g)
    ids[:, 0] = 0  # <s>
    ids[1, SEQ - 5:] = 1
    ids[4, SEQ - 11:] = 1
    labels = torch.randint(0, 3, (BATCH,), generator=g)
    return _model(transformers.AutoModelForSequenceClassification, cfg, attn), {"input_ids": ids, "labels": labels}


def t5(attn="eager"):
    """A seq2seq model: T5ForConditionalGeneration (encoder, decoder, cross
    attention), labels shifted into decoder inputs by the model itself."""
    cfg = transformers.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0)
    return _model(transformers.AutoModelForSeq2SeqLM, cfg, attn), _batch()
