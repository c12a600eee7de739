//! Reader for KataGo model files (`.bin.gz`, and uncompressed `.bin`): a
//! whitespace-separated text header per layer, each float block written
//! as `@BIN@` and little-endian f32s. Model versions 8 to 15 with the
//! layer kinds this crate implements (residual, global pooling, nested
//! bottleneck, transformer attention and SwiGLU FFN) are supported.
//!
//! The reader turns the file into a [`NetConfig`] and named weights in
//! this crate's layout: convolutions `[out, in, kh, kw]`, matmuls
//! `[in, out]`, batch norms folded to scale and bias.

use std::io::Read;
use std::path::Path;

use super::config::{Activation, BlockConfig, NetConfig, PostProcess, TrunkNorm};
use super::error::NetError;
pub use super::layers::WeightMap;

/// A KataGo model read into our layout.
#[derive(Debug)]
pub struct KataGoModel {
    pub config: NetConfig,
    pub weights: WeightMap,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    model: String,
}

impl Reader<'_> {
    fn err(&self, reason: impl Into<String>) -> NetError {
        NetError::KataGoFormat {
            name: self.model.clone(),
            reason: reason.into(),
        }
    }

    fn token(&mut self) -> Result<String, NetError> {
        while self.pos < self.buf.len() && self.buf[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        let start = self.pos;
        while self.pos < self.buf.len() && !self.buf[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(NetError::Truncated(format!(
                "{}: header ends early",
                self.model
            )));
        }
        Ok(String::from_utf8_lossy(&self.buf[start..self.pos]).into_owned())
    }

    fn int(&mut self, what: &str) -> Result<usize, NetError> {
        let t = self.token()?;
        t.parse::<i64>()
            .ok()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| {
                self.err(format!(
                    "{what}: expected a non-negative integer, found {t:?}"
                ))
            })
    }

    fn float(&mut self, what: &str) -> Result<f32, NetError> {
        let t = self.token()?;
        t.parse::<f32>()
            .map_err(|_| self.err(format!("{what}: expected a number, found {t:?}")))
    }

    fn zeros(&mut self, n: usize, what: &str) -> Result<(), NetError> {
        for _ in 0..n {
            if self.int(what)? != 0 {
                return Err(NetError::Unsupported(format!(
                    "{}: {what} is set",
                    self.model
                )));
            }
        }
        Ok(())
    }

    fn floats(&mut self, n: usize, what: &str) -> Result<Vec<f32>, NetError> {
        let mut skipped = 0;
        while self.pos < self.buf.len() && self.buf[self.pos] != b'@' {
            self.pos += 1;
            skipped += 1;
            if skipped > 100 {
                return Err(self.err(format!("{what}: no @BIN@ float block")));
            }
        }
        if !self.buf[self.pos..].starts_with(b"@BIN@") {
            return Err(NetError::Truncated(format!(
                "{}: {what}: missing @BIN@",
                self.model
            )));
        }
        self.pos += 5;
        let end = self.pos + 4 * n;
        if end > self.buf.len() {
            return Err(NetError::Truncated(format!(
                "{}: {what}: needs {n} floats, file ends early",
                self.model
            )));
        }
        let v: Vec<f32> = self.buf[self.pos..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        self.pos = end;
        if let Some(bad) = v.iter().position(|x| !x.is_finite()) {
            return Err(self.err(format!("{what}: weight {bad} is not finite")));
        }
        Ok(v)
    }

    /// A convolution; returns (kernel, in, out).
    fn conv(&mut self, w: &mut WeightMap, name: &str) -> Result<(usize, usize, usize), NetError> {
        let lname = self.token()?;
        let ky = self.int("conv y size")?;
        let kx = self.int("conv x size")?;
        let cin = self.int("conv in channels")?;
        let cout = self.int("conv out channels")?;
        let dy = self.int("dilation")?;
        let dx = self.int("dilation")?;
        if ky != kx || ky % 2 == 0 || dy != 1 || dx != 1 || cin == 0 || cout == 0 {
            return Err(NetError::Unsupported(format!(
                "{lname}: conv {ky}x{kx} dilation {dy}x{dx}"
            )));
        }
        let raw = self.floats(ky * kx * cin * cout, &lname)?;
        // File order y, x, in, out -> ours out, in, y, x.
        let mut out = vec![0f32; raw.len()];
        let mut i = 0;
        for y in 0..ky {
            for x in 0..kx {
                for ic in 0..cin {
                    for oc in 0..cout {
                        out[((oc * cin + ic) * ky + y) * kx + x] = raw[i];
                        i += 1;
                    }
                }
            }
        }
        w.put(&format!("{name}.weight"), vec![cout, cin, ky, kx], out);
        Ok((ky, cin, cout))
    }

    /// A batch norm folded to scale and bias; returns channels.
    fn bn(&mut self, w: &mut WeightMap, name: &str) -> Result<usize, NetError> {
        let lname = self.token()?;
        let c = self.int("bn channels")?;
        let eps = self.float("bn epsilon")?;
        let has_scale = self.int("bn has scale")? != 0;
        let has_bias = self.int("bn has bias")? != 0;
        let mean = self.floats(c, &lname)?;
        let var = self.floats(c, &lname)?;
        let scale = if has_scale {
            self.floats(c, &lname)?
        } else {
            vec![1.0; c]
        };
        let bias = if has_bias {
            self.floats(c, &lname)?
        } else {
            vec![0.0; c]
        };
        let s: Vec<f32> = (0..c).map(|i| scale[i] / (var[i] + eps).sqrt()).collect();
        let b: Vec<f32> = (0..c).map(|i| bias[i] - s[i] * mean[i]).collect();
        w.put(&format!("{name}.scale"), vec![c], s);
        w.put(&format!("{name}.bias"), vec![c], b);
        Ok(c)
    }

    fn activation(
        &mut self,
        version: usize,
        seen: &mut Option<Activation>,
    ) -> Result<(), NetError> {
        let _name = self.token()?;
        let a = if version >= 11 {
            match self.token()?.as_str() {
                "ACTIVATION_IDENTITY" => Activation::Identity,
                "ACTIVATION_RELU" => Activation::Relu,
                "ACTIVATION_MISH" => Activation::Mish,
                "ACTIVATION_SILU" => Activation::Silu,
                other => return Err(self.err(format!("unknown activation {other}"))),
            }
        } else {
            Activation::Relu
        };
        match seen {
            None => *seen = Some(a),
            Some(s) if *s == a => {}
            Some(_) => {
                return Err(NetError::Unsupported(
                    "a model mixing activation functions".to_string(),
                ))
            }
        }
        Ok(())
    }

    /// A matmul; returns (in, out).
    fn matmul(&mut self, w: &mut WeightMap, name: &str) -> Result<(usize, usize), NetError> {
        let lname = self.token()?;
        let cin = self.int("matmul in")?;
        let cout = self.int("matmul out")?;
        let v = self.floats(cin * cout, &lname)?;
        w.put(&format!("{name}.weight"), vec![cin, cout], v);
        Ok((cin, cout))
    }

    fn matbias(&mut self, w: &mut WeightMap, name: &str) -> Result<usize, NetError> {
        let lname = self.token()?;
        let c = self.int("bias channels")?;
        let v = self.floats(c, &lname)?;
        w.put(&format!("{name}.bias"), vec![c], v);
        Ok(c)
    }

    fn rms_weight(&mut self, w: &mut WeightMap, name: &str) -> Result<usize, NetError> {
        let lname = self.token()?;
        let c = self.int("rmsnorm channels")?;
        let _eps = self.float("rmsnorm epsilon")?;
        let v = self.floats(c, &lname)?;
        w.put(name, vec![c], v);
        Ok(c)
    }

    fn blocks(
        &mut self,
        w: &mut WeightMap,
        prefix: &str,
        n: usize,
        c: usize,
        version: usize,
        act: &mut Option<Activation>,
    ) -> Result<Vec<BlockConfig>, NetError> {
        let mut out = Vec::new();
        for i in 0..n {
            let name = format!("{prefix}.{i}");
            let kind = self.token()?;
            let cfg = match kind.as_str() {
                "ordinary_block" => {
                    self.token()?;
                    self.bn(w, &format!("{name}.pre"))?;
                    self.activation(version, act)?;
                    let (k1, _, mid) = self.conv(w, &format!("{name}.conv1"))?;
                    self.bn(w, &format!("{name}.mid"))?;
                    self.activation(version, act)?;
                    let (k2, _, co) = self.conv(w, &format!("{name}.conv2"))?;
                    if k1 != 3 || k2 != 3 || co != c {
                        return Err(NetError::Unsupported(format!(
                            "{name}: residual block shape"
                        )));
                    }
                    BlockConfig::Residual { mid }
                }
                "gpool_block" => {
                    self.token()?;
                    self.bn(w, &format!("{name}.pre"))?;
                    self.activation(version, act)?;
                    let (_, _, mid) = self.conv(w, &format!("{name}.conv_regular"))?;
                    let (_, _, gpool) = self.conv(w, &format!("{name}.conv_gpool"))?;
                    self.bn(w, &format!("{name}.gpool_norm"))?;
                    self.activation(version, act)?;
                    self.matmul(w, &format!("{name}.gpool_to_bias"))?;
                    self.bn(w, &format!("{name}.mid"))?;
                    self.activation(version, act)?;
                    self.conv(w, &format!("{name}.conv2"))?;
                    BlockConfig::GlobalPool { mid, gpool }
                }
                "nested_bottleneck_block" => {
                    self.token()?;
                    let inner_n = self.int("nested block count")?;
                    self.bn(w, &format!("{name}.pre"))?;
                    self.activation(version, act)?;
                    let (_, _, mid) = self.conv(w, &format!("{name}.conv_in"))?;
                    let inner =
                        self.blocks(w, &format!("{name}.inner"), inner_n, mid, version, act)?;
                    self.bn(w, &format!("{name}.post"))?;
                    self.activation(version, act)?;
                    self.conv(w, &format!("{name}.conv_out"))?;
                    BlockConfig::NestedBottleneck { mid, inner }
                }
                "transformer_attention_block" => {
                    self.token()?;
                    let heads = self.int("heads")?;
                    let kv_heads = self.int("kv heads")?;
                    let q_head_dim = self.int("q head dim")?;
                    let v_head_dim = self.int("v head dim")?;
                    let rope = self.int("use rope")? != 0;
                    let learnable = self.int("learnable rope")? != 0;
                    if !rope || !learnable || heads == 0 || kv_heads == 0 || heads % kv_heads != 0 {
                        return Err(NetError::Unsupported(format!(
                            "{name}: attention without learnable rotary positions"
                        )));
                    }
                    self.rms_weight(w, &format!("{name}.norm"))?;
                    self.matmul(w, &format!("{name}.q"))?;
                    self.matmul(w, &format!("{name}.k"))?;
                    self.matmul(w, &format!("{name}.v"))?;
                    self.matmul(w, &format!("{name}.out"))?;
                    let lname = self.token()?;
                    let a = self.int("rope heads")?;
                    let b = self.int("rope pairs")?;
                    let two = self.int("rope dim")?;
                    if a != kv_heads || b * 2 != q_head_dim || two != 2 {
                        return Err(self.err(format!("{lname}: rope table shape")));
                    }
                    let v = self.floats(a * b * 2, &lname)?;
                    w.put(&format!("{name}.rope"), vec![a, b, 2], v);
                    BlockConfig::Attention {
                        heads,
                        kv_heads,
                        q_head_dim,
                        v_head_dim,
                    }
                }
                "transformer_ffn_block" => {
                    self.token()?;
                    let _c = self.int("ffn channels")?;
                    let hidden = self.int("ffn hidden")?;
                    if self.int("swiglu")? == 0 {
                        return Err(NetError::Unsupported(format!("{name}: FFN without SwiGLU")));
                    }
                    self.rms_weight(w, &format!("{name}.norm"))?;
                    self.matmul(w, &format!("{name}.linear1"))?;
                    self.matmul(w, &format!("{name}.gate"))?;
                    self.matmul(w, &format!("{name}.linear2"))?;
                    BlockConfig::SwiGluFfn { hidden }
                }
                other => return Err(NetError::Unsupported(format!("block kind {other}"))),
            };
            out.push(cfg);
        }
        Ok(out)
    }
}

/// Reads a KataGo model from bytes (gzip-compressed or not).
pub fn parse(bytes: &[u8]) -> Result<KataGoModel, NetError> {
    let mut raw = Vec::new();
    let buf: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut raw)
            .map_err(|e| NetError::Truncated(format!("gzip stream: {e}")))?;
        &raw
    } else {
        bytes
    };
    let mut r = Reader {
        buf,
        pos: 0,
        model: "?".to_string(),
    };
    let name = r.token()?;
    r.model = name.clone();
    let version = r.int("model version")?;
    if !(8..=15).contains(&version) {
        return Err(NetError::Unsupported(format!(
            "model version {version} (supported: 8 to 15)"
        )));
    }
    let spatial_inputs = r.int("input channels")?;
    let global_inputs = r.int("global input channels")?;
    let mut post = PostProcess::new();
    // KataGo's `supportsShorttermError`.
    post.shortterm_error_trained = Some(version >= 9);
    if version >= 13 {
        post.td_score_multiplier = r.float("tdScoreMultiplier")?;
        post.score_mean_multiplier = r.float("scoreMeanMultiplier")?;
        post.score_stdev_multiplier = r.float("scoreStdevMultiplier")?;
        post.lead_multiplier = r.float("leadMultiplier")?;
        post.variance_time_multiplier = r.float("varianceTimeMultiplier")?;
        post.shortterm_value_error_multiplier = r.float("shorttermValueErrorMultiplier")?;
        post.shortterm_score_error_multiplier = r.float("shorttermScoreErrorMultiplier")?;
    }
    if version >= 15 {
        if r.int("metadata encoder")? != 0 {
            return Err(NetError::Unsupported(
                "SGF metadata encoder (human-style nets)".into(),
            ));
        }
        if r.int("pass-alive under suicide rules")? != 0 {
            return Err(NetError::Unsupported(
                "pass-alive features under suicide rules".into(),
            ));
        }
        r.zeros(6, "model options C..H")?;
    }
    let mut w = WeightMap::default();
    let mut act = None;
    // Trunk.
    r.token()?;
    let nblocks = r.int("trunk blocks")?;
    let trunk = r.int("trunk channels")?;
    for what in [
        "mid channels",
        "regular channels",
        "dilated channels",
        "gpool channels",
    ] {
        r.int(what)?;
    }
    let mut rms = false;
    if version >= 15 {
        rms = match r.int("trunk norm kind")? {
            0 => false,
            1 => true,
            k => return Err(NetError::Unsupported(format!("trunk norm kind {k}"))),
        };
        r.zeros(5, "trunk options B..F")?;
    }
    let (stem_kernel, cin, _) = r.conv(&mut w, "stem")?;
    if cin != spatial_inputs {
        return Err(r.err("stem input channels differ from the header"));
    }
    r.matmul(&mut w, "stem_global")?;
    let blocks = r.blocks(&mut w, "blocks", nblocks, trunk, version, &mut act)?;
    let trunk_norm = if rms {
        let lname = r.token()?;
        let c = r.int("tip channels")?;
        let epsilon = r.float("tip epsilon")?;
        let spatial = r.int("tip spatial")?;
        let groups = r.int("tip groups")?;
        if spatial != 1 || groups != 0 {
            return Err(NetError::Unsupported(format!(
                "{lname}: non-spatial or grouped RMSNorm"
            )));
        }
        let g = r.floats(c, &lname)?;
        let b = r.floats(c, &lname)?;
        w.put("tip.gamma", vec![c], g);
        w.put("tip.beta", vec![c], b);
        TrunkNorm::SpatialRmsNorm { epsilon }
    } else {
        r.bn(&mut w, "tip.bn")?;
        TrunkNorm::BatchNorm
    };
    r.activation(version, &mut act)?;
    // Policy head.
    r.token()?;
    let (_, _, policy_channels) = r.conv(&mut w, "policy.conv_p")?;
    r.conv(&mut w, "policy.conv_g")?;
    r.bn(&mut w, "policy.norm_g")?;
    r.activation(version, &mut act)?;
    r.matmul(&mut w, "policy.g_to_bias")?;
    r.bn(&mut w, "policy.norm_p")?;
    r.activation(version, &mut act)?;
    let (_, _, policy_outputs) = r.conv(&mut w, "policy.conv_out")?;
    r.matmul(&mut w, "policy.pass1")?;
    if version >= 15 {
        r.matbias(&mut w, "policy.pass1")?;
        r.activation(version, &mut act)?;
        r.matmul(&mut w, "policy.pass2")?;
    }
    // Value head.
    r.token()?;
    let (_, _, value_channels) = r.conv(&mut w, "value.conv")?;
    r.bn(&mut w, "value.norm")?;
    r.activation(version, &mut act)?;
    let (_, value_hidden) = r.matmul(&mut w, "value.fc")?;
    r.matbias(&mut w, "value.fc")?;
    r.activation(version, &mut act)?;
    r.matmul(&mut w, "value.value")?;
    r.matbias(&mut w, "value.value")?;
    let (_, misc) = r.matmul(&mut w, "value.misc")?;
    r.matbias(&mut w, "value.misc")?;
    if misc != 6 {
        return Err(NetError::Unsupported(format!(
            "{misc} score outputs (need 6, model version >= 9)"
        )));
    }
    r.conv(&mut w, "value.ownership")?;

    let mut config = NetConfig::new(
        name,
        trunk,
        blocks,
        trunk_norm,
        act.unwrap_or(Activation::Relu),
        policy_channels,
        value_channels,
        value_hidden,
        post,
    );
    config.model_version = version;
    config.spatial_inputs = spatial_inputs;
    config.global_inputs = global_inputs;
    config.stem_kernel = stem_kernel;
    config.policy_outputs = policy_outputs;
    Ok(KataGoModel { config, weights: w })
}

/// Reads a KataGo model file.
pub fn load(path: &Path) -> Result<KataGoModel, NetError> {
    let bytes = std::fs::read(path).map_err(|source| NetError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&bytes)
}
